"""agent_core.observation: one rule per test, plus the tool output cases of docs/real-world-cases.md."""

import base64
import json

import pytest
from dify_plugin.core.entities.message import SessionMessage
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.tool import ToolInvokeMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import observation as obs
from agent_core.observation import ObservationCollector, ToolOutcome
from agent_core.tokens import estimate_tokens

T = ToolInvokeMessage
M = ToolInvokeMessage.MessageType


# --- builders -------------------------------------------------------------------------------------


def text(value: str) -> T:
    return T(type=M.TEXT, message=T.TextMessage(text=value))


def link(url: str, meta: dict | None = None) -> T:
    return T(type=M.LINK, message=T.TextMessage(text=url), meta=meta)


def image(url: str, kind=M.IMAGE, meta: dict | None = None) -> T:
    return T(type=kind, message=T.TextMessage(text=url), meta=meta)


def blob(data: bytes, meta: dict | None = None) -> T:
    return T(type=M.BLOB, message=T.BlobMessage(blob=data), meta=meta)


def chunk(id_: str, seq: int, total: int, data: bytes, end: bool = False, meta: dict | None = None) -> T:
    return T(
        type=M.BLOB_CHUNK,
        message=T.BlobChunkMessage(id=id_, sequence=seq, total_length=total, blob=data, end=end),
        meta=meta,
    )


def json_msg(value) -> T:
    return T(type=M.JSON, message=T.JsonMessage(json_object=value))


def variable(name: str, value, stream: bool = False) -> T:
    return T(type=M.VARIABLE, message=T.VariableMessage(variable_name=name, variable_value=value, stream=stream))


def run(*messages, tool="search", max_tokens=4000, secrets=(), error=None) -> tuple[ToolOutcome, list]:
    collector = ObservationCollector(tool, max_tokens=max_tokens, secrets=secrets)
    forwarded = []
    for message in messages:
        forwarded.extend(collector.add(message))
    if error is not None:
        collector.fail(error)
    return collector.finish(), forwarded


# --- text ----------------------------------------------------------------------------------------


def test_text_goes_to_the_observation_and_not_to_the_user():
    outcome, forwarded = run(text("It is 21 °C in Berlin."))
    assert outcome.observation == "It is 21 °C in Berlin."
    assert outcome.full_text == "It is 21 °C in Berlin."
    assert forwarded == [] and outcome.forwarded == ()
    assert outcome.error is None and outcome.truncated_tokens == 0


def test_streamed_text_pieces_are_joined_as_they_came():
    outcome, _ = run(text("Hel"), text("lo "), text("world"))
    assert outcome.observation == "Hello world"


# --- link (dop3674) --------------------------------------------------------------------------------


def test_dop3674_tool_file_link_is_forwarded():
    message = link("/files/tools/file-1.docx", {"tool_file_id": "file-1", "mime_type": "application/octet-stream"})
    outcome, forwarded = run(message)
    assert "A file was sent to the user: file-1.docx (application/octet-stream)" in outcome.observation
    assert "/files/" not in outcome.observation  # an internal, expiring address (test_file_addresses.py)
    assert len(forwarded) == 1
    assert isinstance(forwarded[0], AgentInvokeMessage)
    assert forwarded[0].type == M.LINK
    assert forwarded[0].message.text == "/files/tools/file-1.docx"
    assert forwarded[0].meta == {"tool_file_id": "file-1", "mime_type": "application/octet-stream"}


def test_dop3674_plain_link_is_not_forwarded():
    outcome, forwarded = run(link("https://dify.ai"))
    assert "result link: https://dify.ai." in outcome.observation
    assert forwarded == []


@pytest.mark.parametrize(
    "url",
    ["/files/tools/abc.pdf", "https://dify.example.com/files/tools/abc.pdf?timestamp=1&nonce=2&sign=3"],
)
def test_link_under_files_path_is_forwarded_without_meta(url):
    _, forwarded = run(link(url))
    assert [m.message.text for m in forwarded] == [url]


def test_link_mentioning_files_elsewhere_is_not_forwarded():
    _, forwarded = run(link("https://example.com/docs?next=/files/x"))
    assert forwarded == []


# --- images ----------------------------------------------------------------------------------------


def test_image_is_forwarded_as_is_and_named():
    outcome, forwarded = run(image("https://img.example.com/cat.png"))
    assert [(m.type, m.message.text) for m in forwarded] == [(M.IMAGE, "https://img.example.com/cat.png")]
    assert "An image was sent to the user: https://img.example.com/cat.png." in outcome.observation


def test_image_link_with_tool_file_id_is_forwarded_unchanged():
    meta = {"tool_file_id": "f1", "mime_type": "image/png", "filename": "chart.png"}
    outcome, forwarded = run(image("/files/tools/f1.png?sign=x", M.IMAGE_LINK, meta))
    assert forwarded[0].type == M.IMAGE_LINK and forwarded[0].meta == meta
    assert "chart.png" in outcome.observation and "/files/tools/f1.png" not in outcome.observation


def test_image_link_without_meta_gets_the_tool_file_id_from_its_url():
    _, forwarded = run(image("/files/tools/3f9a2c7e-1b44.png?timestamp=1", M.IMAGE_LINK))
    assert forwarded[0].type == M.IMAGE_LINK
    assert forwarded[0].meta == {"tool_file_id": "3f9a2c7e-1b44"}


def test_external_image_link_is_forwarded_as_image_so_dify_downloads_it():
    # Dify's Agent node fails the node on an image_link without tool_file_id
    _, forwarded = run(image("https://cdn.example.com/a.jpg", M.IMAGE_LINK))
    assert forwarded[0].type == M.IMAGE
    assert forwarded[0].message.text == "https://cdn.example.com/a.jpg"


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("javascript:alert(document.cookie)", "starts with 'javascript:'"),
        ("file:///etc/passwd", "starts with 'file:'"),
        ("ftp://files.example.com/a.png", "starts with 'ftp:'"),
        ("cat.png", "has no scheme"),
        ("https:///no-host.png", "starts with 'https:'"),
    ],
)
def test_an_image_dify_cannot_fetch_is_not_sent_and_the_model_is_told_why(url, said):
    # Dify downloads an image address and, when it cannot, answers the user "Failed to download image: <address>"
    outcome, forwarded = run(image(url, M.IMAGE_LINK, {"filename": "chart.png"}))
    assert forwarded == []
    assert "An image from the tool (chart.png) was not sent to the user" in outcome.observation
    assert said in outcome.observation
    assert "alert" not in outcome.observation and "passwd" not in outcome.observation


@pytest.mark.parametrize(
    ("url", "meta"),
    [("http://img.example.com/a.png", None), ("/files/tools/f1.png", None), ("local/a.png", {"tool_file_id": "f1"})],
)
def test_web_addresses_and_dify_files_are_images_dify_can_fetch(url, meta):
    outcome, forwarded = run(image(url, M.IMAGE_LINK, meta))
    assert len(forwarded) == 1 and forwarded[0].message.text == url
    assert "An image was sent to the user" in outcome.observation


def test_inline_image_data_is_forwarded_as_a_file_and_never_reaches_the_model():
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 600
    data_url = "data:image/png;base64," + base64.b64encode(png).decode()
    outcome, forwarded = run(image(data_url))
    assert [(m.type, m.message.blob, m.meta) for m in forwarded] == [(M.BLOB, png, {"mime_type": "image/png"})]
    assert "iVBOR" not in outcome.observation and "AAAA" not in outcome.observation
    assert f"image/png, {len(png)} bytes" in outcome.observation


def test_undecodable_inline_image_is_not_forwarded():
    outcome, forwarded = run(image("data:image/png,rawnotbase64"))
    assert forwarded == []
    assert "invalid response" in outcome.observation


def test_inline_link_data_is_not_shown_to_the_model():
    outcome, _ = run(link("data:text/plain;base64," + "QUFB" * 300))
    assert "QUFB" not in outcome.observation
    assert "inline data" in outcome.observation


# --- blob ------------------------------------------------------------------------------------------


def test_blob_is_forwarded_with_its_meta_and_named_without_bytes():
    data = b"%PDF-1.7 binary \x00\x01\x02"
    meta = {"mime_type": "application/pdf", "filename": "report.pdf"}
    outcome, forwarded = run(blob(data, meta))
    assert len(forwarded) == 1
    assert forwarded[0].type == M.BLOB
    assert forwarded[0].message.blob == data
    assert forwarded[0].meta == meta
    assert f"report.pdf (application/pdf, {len(data)} bytes)" in outcome.observation
    assert "PDF-1.7" not in outcome.observation
    assert "JVBER" not in outcome.observation  # base64 of %PDF


def test_blob_without_meta_is_named_by_size():
    outcome, forwarded = run(blob(b"12345"))
    assert forwarded[0].meta is None
    assert "5 bytes" in outcome.observation


def test_forwarded_blob_serializes_like_the_sdk_writer_does():
    data = bytes(range(256)) * 4
    _, forwarded = run(blob(data, {"mime_type": "application/octet-stream"}))
    line = SessionMessage(type=SessionMessage.Type.STREAM, data=forwarded[0].model_dump()).model_dump_json()
    assert json.loads(line)["data"]["message"]["blob"]


def test_single_blob_line_stays_under_the_daemon_5_mib_line_limit():
    data = b"\xff" * obs.SINGLE_BLOB_MAX_BYTES
    _, forwarded = run(blob(data, {"mime_type": "image/png"}))
    assert len(forwarded) == 1
    line = SessionMessage(type=SessionMessage.Type.STREAM, data=forwarded[0].model_dump()).model_dump_json()
    assert len(line) < 5 * 1024 * 1024


def test_large_blob_is_forwarded_as_chunks_the_daemon_reassembles():
    data = bytes(range(256)) * (obs.SINGLE_BLOB_MAX_BYTES // 256 + 100)
    meta = {"mime_type": "video/mp4", "filename": "clip.mp4"}
    outcome, forwarded = run(blob(data, meta))
    assert all(m.type == M.BLOB_CHUNK for m in forwarded)
    assert len({m.message.id for m in forwarded}) == 1
    assert [m.message.sequence for m in forwarded] == list(range(len(forwarded)))
    assert all(len(m.message.blob) <= 8192 for m in forwarded)
    assert [m.message.end for m in forwarded].count(True) == 1 and forwarded[-1].message.end
    assert forwarded[-1].meta == meta  # the daemon takes the meta of the end chunk
    assert b"".join(m.message.blob for m in forwarded) == data
    assert f"clip.mp4 (video/mp4, {len(data)} bytes)" in outcome.observation


def test_blob_over_the_daemon_limit_is_not_forwarded():
    data = b"\x00" * (obs.FORWARD_BLOB_MAX_BYTES + 1)
    outcome, forwarded = run(blob(data, {"filename": "huge.bin"}))
    assert forwarded == []
    assert "huge.bin" in outcome.observation and "too large" in outcome.observation


# --- blob_chunk ------------------------------------------------------------------------------------


def test_chunks_are_reassembled_in_sequence_order_and_forwarded_once_at_end():
    meta = {"mime_type": "text/csv", "filename": "data.csv"}
    collector = ObservationCollector("export")
    assert collector.add(chunk("f", 1, 6, b"def", meta={"mime_type": "other"})) == []
    assert collector.add(chunk("f", 0, 6, b"abc", meta=meta)) == []
    out = collector.add(chunk("f", 2, 6, b"", end=True, meta={"filename": "ignored"}))
    assert len(out) == 1
    assert out[0].type == M.BLOB and out[0].message.blob == b"abcdef"
    assert out[0].meta == {"mime_type": "other"}  # the meta of the first chunk that arrived
    outcome = collector.finish()
    assert outcome.forwarded == tuple(out)
    assert "6 bytes" in outcome.observation


def test_interleaved_chunk_streams_stay_apart():
    collector = ObservationCollector("export")
    out = []
    for message in [
        chunk("a", 0, 2, b"A1", meta={"filename": "a.txt"}),
        chunk("b", 0, 2, b"B1", meta={"filename": "b.txt"}),
        chunk("b", 1, 2, b"", end=True),
        chunk("a", 1, 2, b"", end=True),
    ]:
        out += collector.add(message)
    assert [(m.meta["filename"], m.message.blob) for m in out] == [("b.txt", b"B1"), ("a.txt", b"A1")]


def test_chunk_stream_without_end_is_reported_incomplete_and_not_forwarded():
    outcome, forwarded = run(
        chunk("f", 0, 20, b"0123456789", meta={"filename": "part.bin"}),
        text("done"),
    )
    assert forwarded == [] and outcome.forwarded == ()
    assert "part.bin" in outcome.observation
    assert "incomplete (10 of 20 bytes)" in outcome.observation
    assert outcome.observation.startswith("done")


def test_chunk_stream_with_a_missing_chunk_is_not_forwarded():
    outcome, forwarded = run(
        chunk("f", 0, 9, b"abc", meta={"filename": "x.bin"}),
        chunk("f", 2, 9, b"ghi"),  # the 3 bytes of chunk 1 never came
        chunk("f", 3, 9, b"", end=True),
    )
    assert forwarded == []
    assert "incomplete (6 of 9 bytes)" in outcome.observation


def test_a_gap_in_sequence_numbers_with_every_byte_there_is_a_complete_file():
    """Dify reassembles by bytes (core/plugin/utils/chunk_merger.py), not by sequence numbers."""
    outcome, forwarded = run(
        chunk("f", 0, 6, b"abc", meta={"filename": "x.bin"}),
        chunk("f", 2, 6, b"def"),
        chunk("f", 3, 6, b"", end=True),
    )
    assert [m.message.blob for m in forwarded] == [b"abcdef"]
    assert "incomplete" not in outcome.observation


def test_a_second_end_for_a_file_already_sent_is_not_a_new_incomplete_file():
    outcome, forwarded = run(
        chunk("f", 0, 3, b"abc", meta={"filename": "x.bin"}),
        chunk("f", 1, 3, b"", end=True),
        chunk("f", 2, 3, b"", end=True),
    )
    assert len(forwarded) == 1
    assert "incomplete" not in outcome.observation and "x.bin" in outcome.observation


@pytest.mark.parametrize("meta", ["meta", [1, 2], 7])
def test_a_file_whose_meta_is_not_an_object_is_still_forwarded(meta):
    raw = {"type": "blob", "message": {"blob": base64.b64encode(b"hello").decode()}, "meta": meta}
    outcome, forwarded = run(raw)
    assert [m.message.blob for m in forwarded] == [b"hello"]
    assert "unreadable" not in outcome.observation


def test_chunk_stream_over_the_limit_is_not_kept_in_memory_or_forwarded(monkeypatch):
    monkeypatch.setattr(obs, "FORWARD_BLOB_MAX_BYTES", 10)
    collector = ObservationCollector("export")
    collector.add(chunk("f", 0, 16, b"12345678", meta={"filename": "big.bin"}))
    collector.add(chunk("f", 1, 16, b"12345678"))
    assert collector._files["f"].chunks == {}
    assert collector.add(chunk("f", 2, 16, b"", end=True)) == []
    assert "too large" in collector.finish().observation


# --- file ------------------------------------------------------------------------------------------


def test_a_tool_file_message_is_forwarded_as_a_tool_file_dify_makes_a_file_of():
    """Dify's Agent node fails on a ``file`` message whose meta.file is a dict, and shows a
    ``link`` as text only; an ``image_link`` of a tool file becomes a file of the node's
    output, typed by its stored MIME type (a PDF stays a document)."""
    meta = {"file": {"filename": "invoice.pdf", "mime_type": "application/pdf", "size": 2048,
                     "url": "/files/tools/abc-123.pdf"}}
    outcome, forwarded = run(T(type=M.FILE, message=None, meta=meta))
    (sent,) = forwarded
    assert sent.type == M.IMAGE_LINK and sent.message.text == "/files/tools/abc-123.pdf"
    assert sent.meta == {"mime_type": "application/pdf", "filename": "invoice.pdf", "tool_file_id": "abc-123"}
    assert "invoice.pdf (application/pdf, 2048 bytes)" in outcome.observation


def test_a_tool_file_known_by_its_id_only_gets_difys_own_address():
    meta = {"file": {"filename": "r.docx", "extension": ".docx", "transfer_method": "tool_file",
                     "related_id": "f00d", "url": "http://api:5001/files/f00d/file-preview?sign=x"}}
    _, (sent,) = run(T(type=M.FILE, message=None, meta=meta))
    assert sent.type == M.IMAGE_LINK and sent.message.text == "/files/tools/f00d.docx"
    assert sent.meta["tool_file_id"] == "f00d"


def test_an_uploaded_file_is_never_sent_as_a_tool_file():
    """An upload's ``related_id`` is no tool file: Dify would fail looking it up."""
    meta = {"file": {"filename": "a.pdf", "mime_type": "application/pdf", "transfer_method": "local_file",
                     "related_id": "up1", "url": "/files/up1/file-preview"}}
    _, (sent,) = run(T(type=M.FILE, message=None, meta=meta))
    assert sent.type == M.LINK and "tool_file_id" not in sent.meta


def test_image_file_message_is_forwarded_as_an_image_link():
    meta = {"file": {"filename": "cat.png", "mime_type": "image/png", "type": "image", "url": "/files/tools/cat1.png"}}
    _, (sent,) = run(T(type=M.FILE, message=None, meta=meta))
    assert sent.type == M.IMAGE_LINK and sent.meta["tool_file_id"] == "cat1"


def test_file_message_without_an_address_is_not_forwarded_and_the_model_is_told():
    """Dify's Agent node cannot take a file object across the plugin boundary: a file with no
    address the node can fetch never reaches the user, so the model must not hear it was sent."""
    outcome, forwarded = run(T(type=M.FILE, message=None, meta={}))
    assert forwarded == []
    assert "could not be shown to the user" in outcome.observation
    assert "was sent" not in outcome.observation


def test_a_file_passed_on_by_its_remote_address_is_forwarded_from_it():
    """A workflow tool passing on a file given by address: File.model_dump holds remote_url, no url."""
    remote = {"filename": "cat.jpg", "mime_type": "image/jpeg", "type": "image", "remote_url": "https://example.com/cat.jpg"}
    outcome, forwarded = run(T(type=M.FILE, message=None, meta={"file": remote}))
    assert [(m.type, m.message.text) for m in forwarded] == [(M.IMAGE, "https://example.com/cat.jpg")]
    assert "A file was sent to the user" in outcome.observation


# --- json (dop3542) --------------------------------------------------------------------------------


def test_json_is_appended_compactly():
    outcome, forwarded = run(json_msg({"temperature": 21.5, "city": "Berlin"}))
    assert outcome.observation == '{"temperature":21.5,"city":"Berlin"}'
    assert forwarded == []


def test_json_list_is_appended():
    outcome, _ = run(json_msg([1, 2, 3]))
    assert outcome.observation == "[1,2,3]"


def test_dop3542_workflow_json_duplicating_the_text_is_dropped():
    outputs = {"answer": "42", "sources": ["a", "b"]}
    outcome, _ = run(text(json.dumps(outputs, ensure_ascii=False)), json_msg(outputs))
    assert outcome.observation == json.dumps(outputs, ensure_ascii=False)


def test_json_equal_to_a_pretty_printed_text_is_dropped():
    outputs = {"b": 1, "a": [1, {"c": None}]}
    outcome, _ = run(text(json.dumps(outputs, indent=2)), json_msg(outputs))
    assert outcome.observation == json.dumps(outputs, indent=2)


def test_json_before_its_duplicate_text_is_dropped_too():
    outputs = {"result": "ok"}
    outcome, _ = run(json_msg(outputs), text('{"result": "ok"}'))
    assert outcome.observation == '{"result": "ok"}'


def test_json_duplicating_text_streamed_in_pieces_is_dropped():
    outcome, _ = run(text('{"result": '), text('"ok"}'), json_msg({"result": "ok"}))
    assert outcome.observation == '{"result": "ok"}'


def test_json_that_differs_from_the_text_is_kept():
    outcome, _ = run(text("Found 2 results."), json_msg({"count": 2}))
    assert outcome.observation == 'Found 2 results.\n{"count":2}'


def test_execution_metadata_and_empty_json_are_ignored():
    outcome, _ = run(
        json_msg({"execution_metadata": {"total_tokens": 10}}),
        json_msg({}),
        json_msg([]),
        text("ok"),
    )
    assert outcome.observation == "ok"


def test_execution_metadata_is_removed_from_a_larger_object():
    outcome, _ = run(json_msg({"execution_metadata": {"total_tokens": 10}, "answer": "yes"}))
    assert outcome.observation == '{"answer":"yes"}'


def test_suppressed_json_from_a_raw_message_is_ignored():
    collector = ObservationCollector("wf")
    collector.add({"type": "json", "message": {"json_object": {"a": 1}, "suppress_output": True}, "meta": None})
    collector.add({"type": "text", "message": {"text": "visible"}, "meta": None})
    assert collector.finish().observation == "visible"


def _raw_json(value) -> dict:
    return {"type": "json", "message": {"json_object": value}, "meta": None}


def test_json_that_is_a_string_a_number_or_a_boolean_is_shown_not_skipped():
    """The SDK's model takes only an object or a list, so a tool's ``json_object`` of ``"Sunny"``
    or ``42`` was skipped as unreadable and the model never read the result."""
    outcome, _ = run(_raw_json("Sunny, 21 C"), _raw_json(42), _raw_json(0), _raw_json(False), _raw_json(2.5))
    assert outcome.observation == "Sunny, 21 C\n42\n0\nfalse\n2.5"
    assert run(_raw_json(""), text("ok"))[0].observation == "ok"  # nothing, as {} and []
    null, _ = run(_raw_json(None))
    assert null.observation.endswith("skipped: json message: json_object is null)")


def test_a_json_string_that_repeats_the_text_is_dropped_and_one_with_a_secret_redacted():
    secret = "sk-live-0123456789abcdef"
    outcome, _ = run(text("Sunny"), _raw_json("Sunny"), _raw_json(f"key {secret}"), secrets=(secret,))
    assert outcome.observation == "Sunny\nkey [REDACTED]" and secret not in outcome.full_text


# --- variable and log ------------------------------------------------------------------------------


def test_dop3542_variables_are_neither_observed_nor_forwarded():
    outcome, forwarded = run(
        text("done"), variable("answer", {"x": 1}), variable("s", "ab", True), variable("s", "cd", True)
    )
    assert outcome.observation == "done"
    assert forwarded == []
    assert "[variable answer] {\"x\":1}" in outcome.full_text
    assert "[variable s] abcd" in outcome.full_text


def test_a_lone_variable_becomes_the_observation_when_nothing_else_came():
    outcome, forwarded = run(variable("answer", 1), tool="calc")
    assert outcome.observation == "1" and forwarded == []
    outcome, _ = run(variable("answer", {"x": [1, "é"]}))
    assert outcome.observation == '{"x":[1,"é"]}'
    outcome, _ = run(variable("answer", "plain text"))
    assert outcome.observation == "plain text"


def test_a_streamed_variable_alone_is_observed_as_its_pieces_joined():
    """SSE tools: ``create_stream_variable_message("stream_text", line)`` per line."""
    outcome, _ = run(*(variable("stream_text", f"line {n}\n", True) for n in range(3)))
    assert outcome.observation == "line 0\nline 1\nline 2"
    assert "[variable stream_text] line 0\nline 1\nline 2" in outcome.full_text


def test_several_variables_alone_are_observed_as_compact_json_by_name():
    """MCP tools with structured output and empty content: one variable per key."""
    outcome, _ = run(variable("city", "Paris"), variable("temp", 21), variable("s", "ab", True), variable("s", "cd", True))
    assert json.loads(outcome.observation) == {"city": "Paris", "temp": 21, "s": "abcd"}
    assert outcome.observation == '{"city":"Paris","temp":21,"s":"abcd"}'


@pytest.mark.parametrize(
    "other",
    [
        text("done"),
        json_msg({"a": 1}),
        link("https://example.com/r"),
        blob(b"1", {"filename": "r.bin"}),
        image("https://x/a.png"),
    ],
)
def test_variables_stay_out_when_the_call_produced_text_json_a_link_or_a_file(other):
    outcome, _ = run(other, variable("v", "VAR-VALUE-17"))
    assert "VAR-VALUE-17" not in outcome.observation
    outcome, _ = run(variable("v", "VAR-VALUE-17"), other)
    assert "VAR-VALUE-17" not in outcome.observation


def test_variables_are_observed_when_the_other_messages_said_nothing():
    outcome, _ = run(json_msg({}), json_msg({"execution_metadata": {"x": 1}}), text("\n"), variable("v", "VALUE"))
    assert outcome.observation == "VALUE"


def test_variables_observed_before_a_failure_follow_the_error():
    outcome, _ = run(variable("stream_text", "partial", True), error=RuntimeError("connection reset"))
    assert outcome.observation.startswith("Error: the tool 'search' failed: RuntimeError: connection reset.")
    assert outcome.observation.endswith("Output received before the failure:\npartial")


def test_observed_variables_are_redacted_even_when_streamed_in_pieces():
    secret = "sk-live-abc123"
    outcome, _ = run(variable("out", "key=sk-li", True), variable("out", "ve-abc123 ok", True), secrets=[secret])
    assert outcome.observation == "key=[REDACTED] ok"
    assert secret not in outcome.full_text
    outcome, _ = run(variable("a", secret), variable("b", {"k": f'"{secret}"'}), secrets=[secret])
    assert secret not in outcome.observation and outcome.observation.count("[REDACTED]") == 2


def test_observed_variables_are_capped_like_text_and_redacted_before_the_cut(monkeypatch):
    monkeypatch.setattr(obs, "FULL_TEXT_MAX_CHARS", 1000)
    secret = "sk-live-abc123"
    pieces = ["x" * 990, "key=", secret, " tail " * 200]  # the cap falls inside the secret
    outcome, _ = run(*(variable("s", piece, True) for piece in pieces), max_tokens=100_000, secrets=[secret])
    assert "sk-li" not in outcome.observation and "sk-li" not in outcome.full_text
    assert "[REDACTED]" in outcome.full_text
    assert "tokens were cut" in outcome.observation and outcome.truncated_tokens > 0
    assert "more characters were not kept" in outcome.full_text


def test_a_huge_streamed_variable_is_bounded_and_read_in_linear_time():
    outcome, _ = run(*(variable("stream_text", "word ", True) for _ in range(50_000)), max_tokens=500)
    assert estimate_tokens(outcome.observation) <= 500
    assert outcome.observation.startswith("word word") and outcome.truncated_tokens > 0


def test_finish_twice_with_only_variables_gives_the_same_outcome():
    collector = ObservationCollector("t")
    collector.add(variable("v", "x", True))
    assert collector.finish() == collector.finish()
    assert collector.finish().observation == "x"


def test_log_messages_are_ignored():
    log = T(
        type=M.LOG,
        message=T.LogMessage(label="inner", status=T.LogMessage.LogStatus.START, data={"secret": "x"}),
    )
    outcome, forwarded = run(log, text("ok"))
    assert outcome.observation == "ok" and forwarded == []
    assert "inner" not in outcome.full_text


# --- retriever resources ---------------------------------------------------------------------------


def _resources(context: str, *contents: str) -> T:
    resources = [
        T.RetrieverResourceMessage.RetrieverResource(content=c, position=i + 1, document_name=f"doc{i}")
        for i, c in enumerate(contents)
    ]
    return T(
        type=M.RETRIEVER_RESOURCES,
        message=T.RetrieverResourceMessage(retriever_resources=resources, context=context),
    )


def test_retriever_resources_are_forwarded_and_their_context_observed():
    outcome, forwarded = run(_resources("Paris is the capital of France.", "chunk one"))
    assert len(forwarded) == 1 and forwarded[0].type == M.RETRIEVER_RESOURCES
    assert forwarded[0].message.retriever_resources[0].content == "chunk one"
    assert outcome.observation == "Paris is the capital of France."


def test_retriever_resources_without_context_fall_back_to_their_content():
    outcome, _ = run(_resources("", "first chunk", "second chunk"))
    assert outcome.observation == "first chunk\n\nsecond chunk"


# --- malformed (dop628) ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        None,
        T(type=M.TEXT, message=None),
        T(type=M.LINK, message=T.JsonMessage(json_object={"a": 1})),
        T(type=M.BLOB, message=T.TextMessage(text="not bytes")),
        T(type=M.JSON, message=T.TextMessage(text="not json")),
        T(type=M.VARIABLE, message=None),
        T(type=M.BLOB_CHUNK, message=None),
        T(type=M.RETRIEVER_RESOURCES, message=None),
        {"message": {"text": "no type"}},  # dop628: ToolResponseChunk.Type missing
        {"type": "hologram", "message": {}},
        "just a string",
        42,
    ],
)
def test_dop628_malformed_messages_become_a_note_and_never_raise(bad):
    outcome, forwarded = run(bad)
    assert forwarded == []
    assert "the tool returned an invalid response" in outcome.observation


def test_malformed_messages_do_not_hide_good_ones():
    outcome, _ = run(text("good"), None, None)
    assert outcome.observation.startswith("good\n")
    assert "2 unreadable message(s)" in outcome.observation


def test_raw_dicts_are_accepted():
    collector = ObservationCollector("t")
    collector.add({"type": "text", "message": {"text": "from a dict"}, "meta": None})
    assert collector.finish().observation == "from a dict"


def test_raw_file_message_with_dify_file_marker_is_read_and_named():
    collector = ObservationCollector("t")
    raw = {"type": "file", "message": {"file_marker": "file_marker"}, "meta": {"file": {"filename": "a.docx"}}}
    assert collector.add(raw) == []  # no address: Dify could not show it
    assert "a.docx" in collector.finish().observation


def test_raw_blob_dict_is_decoded_without_touching_the_callers_dict():
    raw = {"type": "blob", "message": {"blob": base64.b64encode(b"hi").decode()}, "meta": {"filename": "h.txt"}}
    collector = ObservationCollector("t")
    out = collector.add(raw)
    assert out[0].message.blob == b"hi"
    assert raw["message"]["blob"] == base64.b64encode(b"hi").decode()


def test_raw_binary_link_is_forwarded_as_a_tool_file():
    collector = ObservationCollector("wf")
    raw = {"type": "binary_link", "message": {"text": "/files/tools/abc.bin"}, "meta": {"tool_file_id": "abc"}}
    out = collector.add(raw)
    assert [(m.type, m.message.text, m.meta["tool_file_id"]) for m in out] == [(M.IMAGE_LINK, "/files/tools/abc.bin", "abc")]
    assert "A file was sent to the user: abc.bin." in collector.finish().observation


def test_raw_binary_link_with_an_odd_id_in_its_meta_takes_the_id_its_address_names():
    collector = ObservationCollector("wf")
    out = collector.add({"type": "binary_link", "message": {"text": "/files/tools/7c9e.pdf"}, "meta": {"tool_file_id": 7}})
    assert [(m.type, m.meta["tool_file_id"]) for m in out] == [(M.IMAGE_LINK, "7c9e")]


def test_raw_binary_link_to_another_address_is_forwarded_as_a_link():
    collector = ObservationCollector("wf")
    out = collector.add({"type": "binary_link", "message": {"text": "https://example.com/a.bin"}, "meta": None})
    assert [(m.type, m.message.text) for m in out] == [(M.LINK, "https://example.com/a.bin")]


# --- empty result (dify27440) ----------------------------------------------------------------------


@pytest.mark.parametrize("messages", [(), (text(""),), (text("  \n"),), (json_msg({}),)])
def test_empty_result_is_never_an_empty_observation(messages):
    outcome, _ = run(*messages, tool="lookup")
    assert outcome.observation == "The tool 'lookup' ran and returned no output."
    assert outcome.full_text


# --- errors (dify28207) ----------------------------------------------------------------------------

TRACEBACK = (
    "tool invoke error: Traceback (most recent call last):\n"
    '  File "/app/api/core/tools/workflow_as_tool/tool.py", line 88, in _invoke\n'
    "    raise ValueError(f\"bad level {level}\")\n"
    "ValueError: bad level 4"
)


def test_dify28207_traceback_is_reduced_to_its_last_line():
    outcome, _ = run(tool="getRequirment", error=Exception(TRACEBACK))
    assert outcome.error == (
        "Error: the tool 'getRequirment' failed: ValueError: bad level 4. "
        "Call it again (with corrected arguments) if that can help, or answer without it."
    )
    assert outcome.observation == outcome.error
    assert "Traceback" not in outcome.observation and "File " not in outcome.observation
    # the log (which Dify shows the app's users) keeps the exception line, not the frames
    assert "Traceback" not in outcome.full_text and "File " not in outcome.full_text
    assert "tool invoke error: ValueError: bad level 4" in outcome.full_text


def test_a_traceback_quoted_in_an_error_object_leaves_no_frame_in_the_log():
    """Dify's ``PluginInvokeError`` quoting a tool plugin's error object with its traceback."""
    quoted = json.dumps({"args": {"traceback": TRACEBACK}, "error_type": "ValueError", "message": "bad level 4"})
    outcome, _ = run(tool="t", error=Exception(f"PluginInvokeError: {quoted}"))
    assert "Traceback" not in outcome.full_text and "tool.py" not in outcome.full_text
    assert "ValueError: bad level 4" in outcome.full_text and "ValueError: bad level 4" in outcome.observation


@pytest.mark.parametrize("args", [{"traceback": TRACEBACK}, {}, {"description": "bad level 4"}])
def test_the_log_shows_a_tool_s_sdk_error_object_as_type_and_message_with_or_without_a_traceback(args):
    """An error object without a traceback stayed raw JSON in the CALL log while one with a
    traceback read ``ValueError: bad level 4``: both now read the same, as a model's error does."""
    quoted = json.dumps({"args": args, "error_type": "ValueError", "message": "bad level 4"})
    outcome, _ = run(tool="t", error=Exception(f"PluginInvokeError: {quoted}"))
    assert outcome.full_text.endswith("[error] Exception: PluginInvokeError: ValueError: bad level 4")
    assert "error_type" not in outcome.full_text and "args" not in outcome.full_text


def test_an_error_without_a_message_logs_its_type():
    outcome, _ = run(tool="t", error=KeyError())
    assert outcome.full_text.endswith("[error] KeyError")


def test_dify28207_cut_off_traceback_keeps_what_preceded_it():
    outcome, _ = run(tool="getRequirment", error='{"getRequirment": "tool invoke error: Traceback (most recent')
    assert "Traceback" not in outcome.observation
    assert "tool invoke error" in outcome.observation


def test_a_traceback_whose_exception_message_has_several_lines_keeps_its_type_and_message():
    """Read as a model's error is (``errors.last_traceback``): the exception line and the lines of
    its message, not the message's last line alone with no type."""
    outcome, _ = run(tool="sql", error=Exception(TRACEBACK.replace("bad level 4", "bad level 4\nallowed: 1 to 3")))
    assert "failed: ValueError: bad level 4 allowed: 1 to 3." in outcome.error


def test_error_names_the_tool_the_type_and_the_message():
    outcome, _ = run(tool="weather", error=TimeoutError("timed out after 30 seconds"))
    assert "'weather'" in outcome.error
    assert "TimeoutError: timed out after 30 seconds" in outcome.error


def test_daemon_error_json_is_unwrapped():
    error = Exception(
        'PluginInvokeError: {"args":{},"error_type":"JSONDecodeError",'
        '"message":"Expecting value: line 1 column 2 (char 1)"}'
    )
    outcome, _ = run(error=error)
    assert "JSONDecodeError: Expecting value: line 1 column 2 (char 1)" in outcome.error
    assert "args" not in outcome.error


def test_error_as_a_plain_string():
    outcome, _ = run(error="the workflow was stopped")
    assert "failed: the workflow was stopped." in outcome.error


def test_long_error_messages_are_capped():
    outcome, _ = run(error=RuntimeError("x" * 10_000))
    assert len(outcome.error) < obs.ERROR_MAX_CHARS + 200
    assert "x" * 10_000 in outcome.full_text


def test_output_before_the_failure_is_kept():
    outcome, forwarded = run(
        text("partial rows: 1, 2"), blob(b"abc", {"filename": "a.csv"}), error=ConnectionError("reset")
    )
    assert outcome.observation.startswith("Error: the tool 'search' failed: ConnectionError: reset.")
    assert "Output received before the failure:\npartial rows: 1, 2" in outcome.observation
    assert "a.csv" in outcome.observation
    assert len(forwarded) == 1 and outcome.forwarded == tuple(forwarded)


def test_the_first_failure_is_the_one_reported():
    collector = ObservationCollector("t")
    collector.fail(ValueError("first"))
    collector.fail(TimeoutError("second"))
    assert "first" in collector.finish().error and "second" not in collector.finish().error


def test_an_exception_whose_str_raises_is_still_reported():
    class Weird(Exception):
        def __str__(self):
            raise RuntimeError("no")

    outcome, _ = run(error=Weird())
    assert "Weird" in outcome.error


# --- secrets ---------------------------------------------------------------------------------------


def test_secrets_are_redacted_in_observation_full_text_and_error():
    secret = "sk-live-abc123"
    outcome, _ = run(
        text(f"token={secret}"),
        json_msg({"auth": f'Bearer "{secret}"'}),
        variable("key", secret),
        secrets=[secret],
        error=RuntimeError(f"401 for key {secret}"),
    )
    for value in (outcome.observation, outcome.full_text, outcome.error):
        assert secret not in value
        assert "[REDACTED]" in value


def test_json_escaped_secrets_are_redacted():
    secret = 'pa"ss\\word'
    outcome, _ = run(json_msg({"password": secret}), secrets=[secret])
    assert "pa" not in outcome.observation.replace("password", "")
    assert "[REDACTED]" in outcome.observation


@pytest.mark.parametrize(
    "written",
    [
        '{"key": "pa\\u0026ss\\u003cwo=rd\\u003e\'1"}',  # Go json.Marshal: <, >, & escaped
        '{"key": "pa\\u0026ss\\u003cwo\\u003drd\\u003e\\u00271"}',  # Gson: = and \' too
        '{"key": "pa\\u0026ss\\u003Cwo=rd\\u003E\\u00271"}',  # .NET System.Text.Json: upper-case hex
    ],
)
def test_a_secret_in_json_written_html_safe_is_redacted(written):
    """An API's JSON body, as Go's, Gson's or .NET's default encoder writes it, holds the secret
    with its <, >, & (and more) as \\u escapes: no other form of the secret matched it."""
    secret = "pa&ss<wo=rd>'1"
    outcome, _ = run(text(written), secrets=[secret])
    assert outcome.observation == '{"key": "[REDACTED]"}'


def test_a_non_ascii_secret_in_json_written_by_dotnet_is_redacted():
    secret = "clé+😀secret"
    outcome, _ = run(text('{"key": "cl\\u00E9\\u002B\\uD83D\\uDE00secret"}'), secrets=[secret])
    assert outcome.observation == '{"key": "[REDACTED]"}'


def test_very_short_and_empty_secrets_are_ignored():
    outcome, _ = run(text("a 1 abc value"), secrets=["", " ", "a", "1", "abc"])
    assert outcome.observation == "a 1 abc value"


def test_overlapping_secrets_redact_the_longest_first():
    outcome, _ = run(text("key=abcdefgh"), secrets=["abcd", "abcdefgh"])
    assert outcome.observation == "key=[REDACTED]"


# --- bounding (smolagents2164) ---------------------------------------------------------------------


def test_smolagents2164_huge_result_is_cut_with_a_note_and_kept_whole_in_full_text():
    page = "".join(f"Paragraph {i}: the quick brown fox jumps over the lazy dog.\n" for i in range(2000))
    outcome, _ = run(text(page), max_tokens=500)
    assert estimate_tokens(outcome.observation) <= 500
    assert outcome.observation.startswith("Paragraph 0:")
    assert "Paragraph 1999:" in outcome.observation  # a short tail is kept
    assert outcome.truncated_tokens > 0
    assert f"[{outcome.truncated_tokens} tokens were cut" in outcome.observation
    assert "the full result is in the agent log" in outcome.observation
    assert outcome.full_text == page.strip("\n")


def test_bounded_observation_keeps_the_error_line():
    outcome, _ = run(text("row\n" * 5000), max_tokens=300, error=RuntimeError("disk full"))
    assert outcome.observation.startswith("Error: the tool 'search' failed: RuntimeError: disk full.")
    assert estimate_tokens(outcome.observation) <= 300
    assert outcome.truncated_tokens > 0


def test_full_text_is_capped_and_the_rest_counted(monkeypatch):
    monkeypatch.setattr(obs, "FULL_TEXT_MAX_CHARS", 1000)
    outcome, _ = run(text("a " * 400), text("b " * 400), text("c " * 400), max_tokens=100000)
    assert outcome.full_text.startswith("a a")
    assert "1400 more characters were not kept" in outcome.full_text
    assert outcome.truncated_tokens > 0  # the dropped part is reported to the model too
    assert "tokens were cut" in outcome.observation
    assert "c c" not in outcome.observation


def test_a_result_past_the_cap_keeps_its_last_lines_for_the_model(monkeypatch):
    """charmbracelet/crush PR #3602: a log longer than the stored text ends with its error; the
    model reads the head, then the last lines (from the first whole line the kept tail holds),
    streamed in pieces; the log keeps the first characters, as before."""
    monkeypatch.setattr(obs, "FULL_TEXT_MAX_CHARS", 1000)
    monkeypatch.setattr(obs, "TAIL_KEPT_CHARS", 300)
    lines = "".join(f"line {i:04d} ok\n" for i in range(2000)) + "FATAL: undefined: foo\nexit status 1\n"
    outcome, _ = run(*[text(lines[i : i + 700]) for i in range(0, len(lines), 700)], max_tokens=100000)
    seen = outcome.observation
    assert seen.startswith("line 0000 ok") and seen.index("line 0000") < seen.index("FATAL: undefined: foo")
    assert "the result's last lines follow" in seen and "exit status 1" in seen
    tail = seen.split("the result's last lines follow]\n", 1)[1]
    assert tail.startswith("line ") and len(tail) <= 300 + 400  # the kept tail, then the cut note
    assert "FATAL" not in outcome.full_text and outcome.full_text.startswith("line 0000 ok")


def test_the_kept_tail_is_redacted_and_starts_at_a_whole_line(monkeypatch):
    """A secret in the last lines is redacted; a line cut by the tail's start is left out, so no
    end of a cut secret is shown."""
    monkeypatch.setattr(obs, "FULL_TEXT_MAX_CHARS", 100)
    monkeypatch.setattr(obs, "TAIL_KEPT_CHARS", 60)
    secret = "sk-live-0123456789abcdef"
    collector = ObservationCollector("shell", secrets=[secret])
    collector.add(text("x" * 200 + f"\nkey={secret}\nFAIL\n"))
    seen = collector.finish().observation
    assert secret not in seen and "[REDACTED]" in seen and "FAIL" in seen
    collector = ObservationCollector("shell", secrets=[secret])
    collector.add(text("x" * 200 + f"token {secret}\n" + "y" * 30 + "\nFAIL\n"))
    seen = collector.finish().observation
    assert "0123456789abcdef" not in seen and "FAIL" in seen


def test_a_file_sent_after_the_text_filled_the_cap_is_still_told_to_the_model(monkeypatch):
    monkeypatch.setattr(obs, "FULL_TEXT_MAX_CHARS", 1000)
    outcome, forwarded = run(text("a" * 5000), blob(b"data", {"filename": "late.bin"}), max_tokens=200)
    assert len(forwarded) == 1
    assert "late.bin" in outcome.observation and "late.bin" in outcome.full_text
    assert "the agent log keeps its first 1000 characters" in outcome.observation
    assert "the full result is in the agent log" not in outcome.observation  # it is not, here


def test_a_result_opening_with_pages_of_blank_space_keeps_what_follows():
    outcome, _ = run(text(" " * 1_000_001 + "END"))
    assert outcome.observation == "END"
    outcome, _ = run(text("\n" * 300_000), text(" " * 900_000), text("END"))
    assert outcome.observation.strip() == "END"
    outcome, _ = run(text("    indented code"))
    assert outcome.observation == "    indented code"  # a little leading space is the tool's own


def test_default_full_text_cap_is_about_a_megabyte():
    assert obs.FULL_TEXT_MAX_CHARS == 1_000_000


# --- whole outcome ---------------------------------------------------------------------------------


def test_forwarded_lists_every_message_in_order():
    collector = ObservationCollector("t")
    returned = []
    for message in [
        image("https://x/a.png"),
        text("t"),
        link("/files/tools/b.txt"),
        blob(b"1", {"filename": "c"}),
        _resources("ctx", "c"),
    ]:
        returned += collector.add(message)
    outcome = collector.finish()
    assert outcome.forwarded == tuple(returned)
    assert [m.type for m in outcome.forwarded] == [M.IMAGE, M.LINK, M.BLOB, M.RETRIEVER_RESOURCES]
    assert all(isinstance(m, AgentInvokeMessage) for m in outcome.forwarded)


def test_notes_and_text_are_in_arrival_order():
    outcome, _ = run(text("Here is the chart."), image("https://x/c.png"), text("Done."))
    assert outcome.observation == "Here is the chart.\nAn image was sent to the user: https://x/c.png.\nDone."


def test_finish_survives_a_rendering_bug(monkeypatch):
    collector = ObservationCollector("t")
    collector.add(link("/files/tools/a.txt"))
    monkeypatch.setattr(collector, "_body", lambda: 1 / 0)
    outcome = collector.finish()
    assert "invalid response" in outcome.observation
    assert len(outcome.forwarded) == 1


def test_finish_can_be_called_twice():
    collector = ObservationCollector("t")
    collector.add(text("x"))
    assert collector.finish() == collector.finish()


_MESSAGES = st.one_of(
    st.text(max_size=300).map(text),
    st.sampled_from(["https://a.b/c", "/files/tools/x.png", "data:image/png;base64,AAAA"]).map(link),
    st.sampled_from(["https://a.b/c.png", "/files/tools/x.png"]).map(image),
    st.binary(max_size=64).map(lambda b: blob(b, {"filename": "f.bin"})),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3).map(json_msg),
    st.integers().map(lambda n: variable("v", n)),
    st.tuples(st.sampled_from("ab"), st.integers(0, 3), st.binary(max_size=8), st.booleans()).map(
        lambda t: chunk(t[0], t[1], 16, t[2], t[3])
    ),
    st.just(None),
    st.just({"type": "nope"}),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_MESSAGES, max_size=25), st.integers(min_value=200, max_value=2000), st.booleans())
def test_any_stream_gives_a_bounded_non_empty_observation(messages, max_tokens, failed):
    outcome, forwarded = run(*messages, max_tokens=max_tokens, error=RuntimeError("x") if failed else None)
    assert outcome.observation.strip()
    assert estimate_tokens(outcome.observation) <= max_tokens
    assert outcome.forwarded == tuple(forwarded)
    assert (outcome.error is not None) == failed
    for message in forwarded:
        SessionMessage(type=SessionMessage.Type.STREAM, data=message.model_dump()).model_dump_json()


@pytest.mark.parametrize("kind", ["blob", "blob_chunk"])
def test_file_data_that_is_not_base64_is_reported_not_forwarded_as_its_text(kind):
    """The SDK's validator keeps undecodable data as it came: the user would get a file holding
    the literal text."""
    message = {"blob": "!!!notbase64@@@"}
    if kind == "blob_chunk":
        message.update(id="f", sequence=0, total_length=15, end=True)
    outcome, forwarded = run({"type": kind, "message": message, "meta": {"filename": "x.bin"}}, text("done"))
    assert forwarded == []
    assert "not base64" in outcome.observation and outcome.observation.startswith("done")
    _, sent = run({"type": "blob", "message": {"blob": "aGVs\nbG8="}, "meta": None})
    assert [m.message.blob for m in sent] == [b"hello"]


def test_a_file_whose_details_would_overfill_its_line_is_withheld_and_never_said_sent():
    # a 3 MiB file is 4 MiB of base64 in its line: 1 MiB of meta more would pass the daemon's 5 MiB
    big_meta = {"filename": "a.bin", "mime_type": "application/octet-stream", "note": "z" * 1_048_400}
    for message in (blob(b"x" * obs.SINGLE_BLOB_MAX_BYTES, big_meta), image("https://example.com/a.png", meta={"note": "z" * 2_000_000})):
        outcome, forwarded = run(message)
        assert forwarded == []
        assert "more than one message to Dify may carry" in outcome.observation
        assert "sent to the user:" not in outcome.observation.replace("not sent to the user", "")


@pytest.mark.parametrize("raw", [False, True], ids=["typed", "raw"])
def test_thousands_of_citations_pass_on_the_best_ranked_and_say_so(raw):
    # a tool sending 300,000 citations held the process (every session on it) for seconds, only
    # to withhold them all as too large for one line
    count = obs.CITATIONS_PER_MESSAGE_MAX + 500
    message = _resources("The context.", *[f"chunk {i}" for i in range(count)])
    if raw:
        message = message.model_dump(mode="json")
    outcome, forwarded = run(message)
    assert len(forwarded) == 1
    kept = forwarded[0].message.retriever_resources
    assert len(kept) == obs.CITATIONS_PER_MESSAGE_MAX and kept[0].content == "chunk 0"
    assert f"sent {count} citations" in outcome.observation and "The context." in outcome.observation


def test_an_upload_at_a_public_address_is_told_to_the_model_as_the_link_it_is_sent_as():
    """One rule for a file message's tool-file id: an upload's ``related_id`` is no tool file, so
    the file goes to the user as a link, and the model hears it was sent (its address is public),
    not that it is shown as a file with the answer (the two rules disagreed)."""
    meta = {"file": {"filename": "a.pdf", "mime_type": "application/pdf", "transfer_method": "local_file",
                     "related_id": "up1", "url": "https://cdn.example.com/a.pdf"}}
    outcome, (sent,) = run(T(type=M.FILE, message=None, meta=meta))
    assert sent.type == M.LINK and "tool_file_id" not in sent.meta
    assert "A file was sent to the user" in outcome.observation and "It is shown with your answer" not in outcome.observation


def test_a_tool_file_known_by_the_messages_meta_only_is_sent_and_told_as_one():
    meta = {"tool_file_id": "t9", "file": {"filename": "r.pdf", "mime_type": "application/pdf",
                                           "url": "https://cdn.example.com/r.pdf"}}
    outcome, (sent,) = run(T(type=M.FILE, message=None, meta=meta))
    assert sent.type == M.IMAGE_LINK and sent.meta["tool_file_id"] == "t9"
    assert "It is shown with your answer" in outcome.observation and "cdn.example.com" not in outcome.observation


# --- the same file twice ---------------------------------------------------------------------------


def test_a_file_yielded_twice_is_forwarded_once_and_told_once():
    """A tool that yields its result file again (an image, a tool-file link, the same bytes, the
    same bytes again in chunks): the user gets it once, the model reads of it once; text between
    the two stays, and a file that differs in its bytes or its name is another file."""
    data = b"a,b\n1,2\n"
    meta = {"filename": "t.csv", "mime_type": "text/csv"}
    tool_file = {"tool_file_id": "f1", "mime_type": "application/pdf"}
    outcome, forwarded = run(
        image("https://e.com/a.png"), text("rows follow"), blob(data, meta), link("/files/tools/f1.pdf", tool_file),
        image("https://e.com/a.png"), blob(data, meta), link("/files/tools/f1.pdf", tool_file),
        chunk("x", 0, len(data), data, meta=meta), chunk("x", 1, len(data), b"", end=True, meta=meta),
        blob(data, {**meta, "filename": "u.csv"}), blob(b"other", meta),
    )
    assert [(m.type.value, (m.meta or {}).get("filename")) for m in forwarded] == [
        ("image", None), ("blob", "t.csv"), ("link", None), ("blob", "u.csv"), ("blob", "t.csv"),
    ]
    assert outcome.forwarded == tuple(forwarded)
    assert outcome.observation.count("https://e.com/a.png") == 1
    assert outcome.observation.count("t.csv (text/csv, 8 bytes)") == 1 and "rows follow" in outcome.observation
    assert outcome.observation.count("f1.pdf") == 1


def test_the_key_of_a_forwarded_file_is_none_for_other_messages():
    file = AgentInvokeMessage(type=M.IMAGE, message=T.TextMessage(text="https://e.com/a.png"), meta=None)
    citations = AgentInvokeMessage(type=M.TEXT, message=T.TextMessage(text="x"), meta=None)
    assert obs.forwarded_file_key([file]) == obs.forwarded_file_key([file.model_copy()])
    assert obs.forwarded_file_key([file, citations]) is None


# --- an unreadable message names the field at fault ----------------------------------------------


@pytest.mark.parametrize(
    ("bad", "fault"),
    [
        ({"type": "variable", "message": {"variable_name": None, "variable_value": 1}}, "variable message: variable_name is null"),
        ({"type": "variable", "message": {"variable_value": 1}}, "variable message: variable_name is missing"),
        ({"type": "blob", "message": {"blob": 12}}, "blob message: blob is not bytes"),
        ({"type": "blob", "message": {"blob": "!!not base64"}}, "blob message: blob is not base64"),
        ({"type": "link", "message": {"text": 5}}, "link message: text is not a string"),
        ({"type": "text", "message": None}, "text message: message is null"),
        ({"type": "log", "message": None}, "log message: message is null"),  # was skipped without a word
        ({"type": "blob_chunk", "message": {"id": "f", "sequence": "x", "total_length": 3, "blob": "", "end": True}},
         "blob_chunk message: sequence is not an integer"),  # the SDK read it as a blob: named from what came
        ({"type": "retriever_resources", "message": {"retriever_resources": [{"content": 5}], "context": ""}},
         "retriever_resources message: retriever_resources.0.content is not a string"),
        ({"type": "hologram", "message": {}}, "hologram message: type is unknown"),
        ({"message": {"text": "x"}}, "message: type is missing"),
        (None, "message is null"),
        (T(type=M.LINK, message=T.JsonMessage(json_object={"a": 1})), "link message: text is missing"),
    ],
)
def test_an_unreadable_message_names_the_field_at_fault(bad, fault):
    """The note named only the type ("1 unreadable message(s) of type variable"): a tool's author
    could not tell what to fix."""
    outcome, forwarded = run(text("ok"), bad)
    assert forwarded == []
    note = f"(the tool returned an invalid response: 1 unreadable message(s) skipped: {fault})"
    assert outcome.observation == "ok\n" + note
    assert note in outcome.full_text  # the CALL node's tool_response


def test_the_faults_of_many_unreadable_messages_are_named_once_each_and_capped():
    bad = [{"type": f"kind{n:02}", "message": {}} for n in range(obs.FAULTS_NAMED + 3)]
    outcome, _ = run(*bad, *bad, {"type": "blob", "message": {"blob": 1}})
    assert f"{2 * len(bad) + 1} unreadable message(s) skipped: blob message: blob is not bytes; kind00 message" in outcome.observation
    assert outcome.observation.endswith("; 4 more)") and "kind10" not in outcome.observation


def test_a_message_type_that_holds_a_secret_is_not_named_with_it():
    secret = "sk-live-0123456789abcdef"
    outcome, _ = run({"type": "x" * 30 + secret, "message": {}}, {"type": f"t {secret} t", "message": {}}, secrets=(secret,))
    assert "sk-live" not in outcome.observation and "sk-live" not in outcome.full_text
    assert "[REDACTED]" in outcome.observation and "type is unknown" in outcome.observation


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="ab 一😀\n{}\"", max_size=40), min_size=0, max_size=4),
    st.integers(min_value=1, max_value=120),
    st.booleans(),
)
def test_short_result_bound_gives_what_the_exact_estimate_gives(texts, max_tokens, failed):
    # a result shown to fit by characters x TOKENS_PER_CHAR_MAX skips the estimate: the outcome
    # must be the one the exact estimate gives (that path forced by a ceiling nothing meets)
    from unittest import mock

    def outcome():
        collector = ObservationCollector("t", max_tokens=max_tokens)
        for text in texts:
            collector.add({"type": "text", "message": {"text": text}})
        if failed:
            collector.fail(RuntimeError("boom"))
        return collector.finish()

    fast = outcome()
    with mock.patch.object(obs, "TOKENS_PER_CHAR_MAX", 10**9):
        exact = outcome()
    assert fast == exact
    assert estimate_tokens(fast.observation) <= max_tokens or fast.truncated_tokens or not "".join(texts).strip()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=4))
def test_a_raw_message_as_any_mapping_reads_as_the_dict(texts):
    # a dict skips abc's Mapping check: a message given as another mapping reads the same
    from types import MappingProxyType

    def outcome(wrap):
        collector = ObservationCollector("t", max_tokens=50)
        for text in texts:
            collector.add(wrap({"type": "text", "message": wrap({"text": text})}))
        return collector.finish()

    assert outcome(dict) == outcome(MappingProxyType)


# --- JSON text escapes and HTML error pages (real-world pass 38) -----------------------------------


def test_json_text_with_unicode_escapes_is_read_with_its_characters():
    """agno#8635: ``json.dumps`` escapes every non-ASCII character; the model reads them written out."""
    outcome, _ = run(text('{"q": "\\u4e2d\\u6587", "n": 1}'))
    assert outcome.observation == '{"q": "中文", "n": 1}'


def test_json_text_streamed_in_pieces_is_unescaped_as_one_document():
    outcome, _ = run(text('{"q": "\\u4e2d'), text('\\u6587"}'))
    assert outcome.observation == '{"q": "中文"}'


def test_escaped_backslash_before_u_and_control_escapes_stay():
    """``\\\\u4e2d`` is a backslash and the letters u4e2d; ``\\u000a`` and lone surrogates stay escaped."""
    raw = '{"path": "C:\\\\u4e2d", "nl": "\\u000a", "lone": "\\ud800", "q": "\\"x\\""}'
    outcome, _ = run(text(raw))
    assert outcome.observation == raw


def test_text_that_is_not_json_keeps_its_escapes():
    outcome, _ = run(text("regex: \\u4e2d+ matches 中"))
    assert outcome.observation == "regex: \\u4e2d+ matches 中"


def test_an_html_error_page_is_told_by_its_title():
    """letta-code#290: a proxy's 502 page; the model reads the status and the page's title."""
    page = "<!DOCTYPE html><html><head><title>example.com | 502: Bad gateway</title></head><body>" + "x" * 3000
    outcome, _ = run(error=RuntimeError(f"HTTP 502: {page}</body></html> (retry later)"))
    assert "HTTP 502: (an HTML page: example.com | 502: Bad gateway) (retry later)" in outcome.observation
    assert "<body>" not in outcome.observation


def test_an_error_mentioning_a_tag_is_left_alone():
    outcome, _ = run(error=ValueError("expected <tool_call>, got <html-ish> text"))
    assert "expected <tool_call>, got <html-ish> text" in outcome.observation


def test_an_mcp_tools_text_blocks_are_read_on_their_own_lines():
    """hermes-webui#7389: Dify yields one text message per MCP content block; glued, a file's
    heading ran into the status line before it."""
    collector = ObservationCollector("get_file_contents", separate_texts=True)
    for piece in ("successfully downloaded text file (SHA: 3f2a9c1)", "# widgets\n", "A small library."):
        collector.add(text(piece))
    assert collector.finish().observation == "successfully downloaded text file (SHA: 3f2a9c1)\n# widgets\nA small library."


def test_other_tools_text_messages_are_pieces_of_one_text():
    outcome, _ = run(text("successfully downloaded"), text(" text file"))
    assert outcome.observation == "successfully downloaded text file"


def test_an_error_naming_the_html_tag_keeps_its_words():
    outcome, _ = run(error=ValueError("parser expected <html> as the root, got <svg> at line 3"))
    assert "parser expected <html> as the root, got <svg> at line 3" in outcome.observation


def test_an_html_page_cut_before_its_end_is_still_told_by_its_title():
    outcome, _ = run(error=RuntimeError("HTTP 504: <html><head><title>504 Gateway Time-out</title></head><body><center>"))
    assert "HTTP 504: (an HTML page: 504 Gateway Time-out)" in outcome.observation
