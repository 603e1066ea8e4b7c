"""Everything a tool can stream back, through the real plugin process, in both strategies.

For each ``ToolInvokeMessage`` type (SDK ``InvokeMessage.MessageType``, docs/protocol-notes.md §1.4/§1.6)
two things are checked: what reaches the user (``result.files``, ``result.messages``: what
Dify's Agent node renders, docs/protocol-notes.md §5) and what reaches the model (the ``tool`` message
of Function Calling, the ``Observation:`` of ReAct, in the next LLM request).
Real-world cases: dop3674 (tool-file links), dop3542 (duplicate workflow JSON, variables),
smolagents2164 (huge outputs).
"""

import base64
import json

import pytest

from agent_core.tokens import estimate_tokens
from local_runner.tools import ScriptedTool, json_message, text_message

STRATEGIES = ["function_calling", "ReAct"]


# --- helpers ---------------------------------------------------------------------------------------


def tool(responses: list[dict], name: str = "fetch") -> ScriptedTool:
    return ScriptedTool(name=name, description="Fetches things", parameters=[], responses=responses)


def call_turns(strategy: str, name: str = "fetch", answer: str = "Done.") -> list[dict]:
    """Round 1 calls ``name`` without arguments, round 2 answers."""
    if strategy == "ReAct":
        action = json.dumps({"action": name, "action_input": {}})
        return [
            {"text": f"Thought: I will call the tool.\nAction:\n```json\n{action}\n```"},
            {"text": f"Thought: I know it.\nFinal Answer: {answer}"},
        ]
    return [{"tool_calls": [{"id": "call_1", "name": name, "arguments": "{}"}]}, {"text": answer}]


def play(run, strategy: str, responses: list[dict], **fields):
    result = run(call_turns(strategy), query="Fetch it.", tools=[tool(responses)], strategy=strategy, **fields)
    assert result.ok, result.error_text
    assert result.unfinished_logs() == []
    assert result.text == "Done."
    assert len(result.llm_requests) == 2
    run.backend.assert_complete()
    return result


def observation(result) -> str:
    """What the model read of the tool's result in round 2 (tool message or ReAct Observation)."""
    messages = result.llm_requests[1]["prompt_messages"]
    if result.strategy == "ReAct":
        pad = next(m["content"] for m in reversed(messages) if m["role"] == "assistant")
        return pad.split("\nObservation: ", 1)[1]
    (tool_message,) = [m for m in messages if m["role"] == "tool"]
    assert tool_message["tool_call_id"] == "call_1" and tool_message["name"] == "fetch"
    return tool_message["content"]


def next_prompt(result) -> str:
    return json.dumps(result.llm_requests[1]["prompt_messages"], ensure_ascii=False)


def call_node(result):
    (node,) = [n for n in result.logs.values() if n.label == "CALL fetch"]
    return node


def forwarded_types(result) -> list[str]:
    """Stream message types the user got apart from the answer, logs and the usage summary."""
    return [m["type"] for m in result.messages if m["type"] not in ("log", "text", "json")]


def file_bytes(entry: dict) -> bytes:
    return base64.b64decode(entry["blob"])


def blob_message(data: bytes, meta: dict | None) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()}, "meta": meta}


def chunk_message(file_id: str, sequence: int, total: int, data: bytes, end: bool, meta=None) -> dict:
    body = {
        "id": file_id,
        "sequence": sequence,
        "total_length": total,
        "blob": base64.b64encode(data).decode(),
        "end": end,
    }
    return {"type": "blob_chunk", "message": body, "meta": meta}


def sample_bytes(size: int) -> bytes:
    """Deterministic binary data whose base64 would be obvious in a prompt."""
    return bytes((n * 131 + 7) % 256 for n in range(size))


def assert_no_base64(result, data: bytes) -> None:
    encoded = base64.b64encode(data).decode()
    prompt = next_prompt(result)
    assert encoded not in prompt
    assert encoded[:48] not in prompt and encoded[len(encoded) // 2 : len(encoded) // 2 + 48] not in prompt


# --- text --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_text_pieces_reach_the_model_joined_and_not_the_user(run, strategy):
    result = play(run, strategy, [text_message("Sunny"), text_message(", 21 C "), text_message("in Paris")])
    assert observation(result) == "Sunny, 21 C in Paris"
    assert forwarded_types(result) == [] and result.files == []
    assert "Sunny" not in result.text


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_empty_result_is_a_note_never_an_empty_message(run, strategy):
    """dify27440: providers reject empty tool messages."""
    result = play(run, strategy, [])
    assert "returned no output" in observation(result)


# --- links (dop3674) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tool_file_link_is_forwarded_and_a_plain_link_is_not(run, strategy):
    tool_file = {
        "type": "link",
        "message": {"text": "/files/tools/file-1.docx"},
        "meta": {"tool_file_id": "file-1", "mime_type": "application/octet-stream"},
    }
    plain = {"type": "link", "message": {"text": "https://dify.ai"}, "meta": None}
    result = play(run, strategy, [tool_file, plain])
    seen = observation(result)
    assert "A file was sent to the user: file-1.docx (application/octet-stream)" in seen
    assert "/files/" not in seen, "an internal, expiring address is never shown to the model"
    assert "result link: https://dify.ai" in seen
    assert result.files == [
        {
            "type": "link",
            "text": "/files/tools/file-1.docx",
            "meta": {"tool_file_id": "file-1", "mime_type": "application/octet-stream"},
        }
    ]
    assert forwarded_types(result) == ["link"]


# --- images --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_images_are_forwarded_once_and_described_to_the_model(run, strategy):
    responses = [
        {"type": "image", "message": {"text": "https://example.com/cat.png"}, "meta": None},
        {
            "type": "image_link",
            "message": {"text": "https://upload.example.com/files/tools/4f2a9c.png?sign=s"},
            "meta": {"tool_file_id": "4f2a9c", "filename": "plot.png"},
        },
    ]
    result = play(run, strategy, responses)
    assert [(f["type"], f["text"]) for f in result.files] == [
        ("image", "https://example.com/cat.png"),
        ("image_link", "https://upload.example.com/files/tools/4f2a9c.png?sign=s"),
    ]
    assert result.files[1]["meta"]["tool_file_id"] == "4f2a9c"
    seen = observation(result)
    assert "An image was sent to the user: https://example.com/cat.png" in seen
    assert "plot.png" in seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_image_link_without_tool_file_id_is_forwarded_as_a_downloadable_image(run, strategy):
    """Dify's Agent node looks up ``tool_file_id`` for every image_link and fails the node
    without one; the URL's id is added, or an external URL goes as ``image``."""
    responses = [
        {"type": "image_link", "message": {"text": "https://example.com/photo.jpg"}, "meta": None},
        {"type": "image_link", "message": {"text": "http://api.local/files/tools/77aa.png?timestamp=1"}, "meta": None},
    ]
    result = play(run, strategy, responses)
    assert [f["type"] for f in result.files] == ["image", "image_link"]
    assert result.files[1]["meta"]["tool_file_id"] == "77aa"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_image_address_dify_cannot_fetch_never_reaches_the_chat(run, strategy):
    """Dify downloads an image address, and when it cannot it answers the user "Failed to
    download image: <address>"; a ``javascript:`` address is not sent, and the model is told."""
    responses = [
        {"type": "image_link", "message": {"text": "javascript:alert(1)"}, "meta": None},
        {"type": "image", "message": {"text": "https://example.com/ok.png"}, "meta": None},
    ]
    result = play(run, strategy, responses)
    assert [(f["type"], f["text"]) for f in result.files] == [("image", "https://example.com/ok.png")]
    assert "javascript" not in result.text
    assert "starts with 'javascript:'" in observation(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_inline_data_image_is_sent_as_a_file_and_its_base64_never_reaches_the_model(run, strategy):
    data = sample_bytes(3000)
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    result = play(run, strategy, [{"type": "image", "message": {"text": url}, "meta": None}])
    (sent,) = result.files
    assert sent["type"] == "blob" and file_bytes(sent) == data and sent["meta"]["mime_type"] == "image/png"
    assert "image/png" in observation(result)
    assert_no_base64(result, data)


# --- json (dop3542) ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_json_is_compact_text_for_the_model_and_not_forwarded(run, strategy):
    value = {"city": "Zürich", "temperature": 21, "tags": ["sunny", "dry"]}
    result = play(run, strategy, [json_message(value)])
    assert observation(result) == '{"city":"Zürich","temperature":21,"tags":["sunny","dry"]}'
    assert forwarded_types(result) == []
    assert result.json_messages == [{"execution_metadata": result.execution_metadata}], "only the agent's usage"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_json_nested_deeper_than_the_sdk_parses_still_reaches_the_model(run, strategy):
    """pydantic-core's parser stops near 254 levels, and the SDK's reader drops such a line."""
    value: dict = {"leaf": 1}
    for _ in range(399):
        value = {"a": value}
    result = play(run, strategy, [json_message(value), text_message("and after it")])
    seen = observation(result)
    assert seen.startswith('{"a":{"a":') and '{"leaf":1}' in seen and seen.endswith("and after it")
    (node,) = [n for n in result.logs.values() if n.label == "CALL fetch"]
    assert node.status == "success"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_json_repeating_the_text_is_not_duplicated(run, strategy):
    """dop3542: workflow tools send the same result as text and as JSON."""
    value = {"answer": "42", "source": "calculator"}
    text = json.dumps(value, ensure_ascii=False)
    result = play(run, strategy, [text_message(text), json_message(value)])
    seen = observation(result)
    assert seen == text
    assert seen.count("calculator") == 1


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_json_with_other_content_than_the_text_is_kept(run, strategy):
    result = play(run, strategy, [text_message("Found 1 result."), json_message({"id": 7})])
    assert observation(result) == 'Found 1 result.\n{"id":7}'


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tool_usage_json_does_not_replace_the_agents_usage(run, strategy):
    """A workflow tool's own ``execution_metadata`` is not the agent's: it is neither shown to
    the model nor forwarded (Dify would pop it as the node's usage)."""
    foreign = {"execution_metadata": {"total_tokens": 999999, "total_price": 9.99}}
    result = play(run, strategy, [text_message("ok"), json_message(foreign)])
    assert observation(result) == "ok"
    assert "999999" not in next_prompt(result)
    assert len(result.json_messages) == 1 and result.execution_metadata["total_tokens"] != 999999


# --- blobs ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_blob_is_sent_once_and_the_model_is_told_its_name_never_its_bytes(run, strategy):
    data = sample_bytes(6000)
    meta = {"filename": "report.pdf", "mime_type": "application/pdf"}
    result = play(run, strategy, [text_message("Report generated."), blob_message(data, meta)])
    (sent,) = result.files
    assert sent["type"] == "blob" and file_bytes(sent) == data
    assert sent["meta"]["filename"] == "report.pdf" and sent["meta"]["mime_type"] == "application/pdf"
    seen = observation(result)
    assert seen.startswith("Report generated.")
    assert "A file was sent to the user: report.pdf (application/pdf, 6000 bytes)" in seen
    assert_no_base64(result, data)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_blob_chunks_are_reassembled_and_forwarded_exactly_once(run, strategy):
    data = sample_bytes(20000)
    meta = {"filename": "export.csv", "mime_type": "text/csv"}
    pieces = [data[i : i + 8192] for i in range(0, len(data), 8192)]
    chunks = [chunk_message("f1", n, len(data), piece, False, meta) for n, piece in enumerate(pieces)]
    chunks.append(chunk_message("f1", len(pieces), len(data), b"", True, meta))
    result = play(run, strategy, chunks)
    (sent,) = result.files
    assert file_bytes(sent) == data and sent["meta"]["filename"] == "export.csv"
    assert (
        sum(
            1
            for m in result.messages
            if m["type"] in ("blob", "blob_chunk") and (m["type"] == "blob" or m["message"].get("end"))
        )
        == 1
    )
    seen = observation(result)
    assert "export.csv (text/csv, 20000 bytes)" in seen and seen.count("A file was sent") == 1
    assert_no_base64(result, data)
    assert_no_base64(result, pieces[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_blob_chunks_without_their_end_are_not_forwarded(run, strategy):
    data = sample_bytes(10000)
    meta = {"filename": "broken.zip", "mime_type": "application/zip"}
    result = play(run, strategy, [chunk_message("f2", 0, len(data), data[:8192], False, meta)])
    assert result.files == []
    assert "broken.zip" in observation(result) and "incomplete" in observation(result)


# --- file -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_file_message_is_forwarded_and_named_to_the_model(run, strategy):
    """Dify's FileMessage (``file_marker``, the file in meta), which SDK 0.10.2 does not know."""
    file = {
        "dify_model_identity": "__dify__file__",
        "filename": "invoice.pdf",
        "mime_type": "application/pdf",
        "size": 2048,
        "type": "document",
        "url": "/files/abc/file-preview",
    }
    result = play(run, strategy, [{"type": "file", "message": {"file_marker": "file_marker"}, "meta": {"file": file}}])
    (sent,) = result.files
    assert sent["type"] == "link" and sent["text"] == "/files/abc/file-preview"
    assert sent["meta"]["filename"] == "invoice.pdf"
    assert "A file was sent to the user: invoice.pdf (application/pdf, 2048 bytes)" in observation(result)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pdf_the_tool_made_reaches_the_nodes_files_as_a_tool_file(run, strategy):
    """Dify hands a tool's non-image file to the plugin as ``binary_link``; forwarded as a
    ``link`` it would be only the text "Link: ..." in the answer, with nothing in ``files``."""
    raw = {"type": "binary_link", "message": {"text": "/files/tools/7c9e.pdf"},
           "meta": {"tool_file_id": "7c9e", "filename": "invoice.pdf", "mime_type": "application/pdf"}}
    result = play(run, strategy, [raw])
    (sent,) = result.files
    assert sent["type"] == "image_link" and sent["meta"]["tool_file_id"] == "7c9e"
    assert "/files/tools/7c9e" not in result.text
    assert "invoice.pdf" in observation(result)


# --- variable, log --------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_variables_and_logs_stay_out_of_the_observation_and_the_outputs(run, strategy):
    """dop3542: a tool's variables leaked into observations; they must not overwrite the
    agent node's outputs either. A tool's own log lines are tool-internal."""
    responses = [
        text_message("visible result"),
        {
            "type": "variable",
            "message": {"variable_name": "text", "variable_value": "VAR-VALUE-17", "stream": False},
            "meta": None,
        },
        {
            "type": "variable",
            "message": {"variable_name": "out", "variable_value": "STREAMED-", "stream": True},
            "meta": None,
        },
        {
            "type": "log",
            "message": {
                "id": "tool-log-1",
                "label": "inner step",
                "parent_id": None,
                "error": None,
                "status": "success",
                "data": {"detail": "LOG-DATA-99"},
                "metadata": {},
            },
            "meta": None,
        },
    ]
    result = play(run, strategy, responses)
    assert observation(result) == "visible result"
    prompt = next_prompt(result)
    assert "VAR-VALUE-17" not in prompt and "STREAMED-" not in prompt and "LOG-DATA-99" not in prompt
    assert result.variables == {}
    assert "inner step" not in [n.label for n in result.logs.values()]
    assert "VAR-VALUE-17" in call_node(result).data["output"]["tool_response"], "kept for the log"


# --- retriever resources -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_retriever_resources_from_a_tool_are_forwarded_and_their_context_read(run, strategy):
    resource = {
        "position": 1,
        "dataset_id": "ds-1",
        "dataset_name": "Manuals",
        "document_id": "doc-9",
        "document_name": "battery.md",
        "segment_id": "seg-3",
        "score": 0.82,
        "content": "Charge to 80 %.",
    }
    message = {
        "type": "retriever_resources",
        "message": {"retriever_resources": [resource], "context": "Charge to 80 %."},
        "meta": None,
    }
    result = play(run, strategy, [message])
    assert observation(result) == "Charge to 80 %."
    (forwarded,) = result.retriever_resources
    assert {k: forwarded[k] for k in resource} == resource


# --- everything at once ----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_mixed_stream_keeps_arrival_order_for_the_model_and_forwards_each_file_once(run, strategy):
    data = sample_bytes(500)
    responses = [
        text_message("Step 1 done."),
        {"type": "image", "message": {"text": "https://example.com/a.png"}, "meta": None},
        json_message({"rows": 3}),
        blob_message(data, {"filename": "rows.bin", "mime_type": "application/octet-stream"}),
        text_message("All done."),
    ]
    result = play(run, strategy, responses)
    lines = observation(result).splitlines()
    assert lines[0] == "Step 1 done." and lines[-1] == "All done."
    assert lines[1].startswith("An image was sent") and lines[2] == '{"rows":3}' and "rows.bin" in lines[3]
    assert [f["type"] for f in result.files] == ["image", "blob"]
    forwarded_before_answer = [m["type"] for m in result.messages if m["type"] in ("image", "blob", "text")]
    assert forwarded_before_answer[:2] == ["image", "blob"], "files reach the user while the agent works"


# --- large results (smolagents2164) ------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_large_result_is_bounded_with_a_note_and_kept_whole_in_the_call_log(run, strategy):
    paragraph = "The quick brown fox jumps over the lazy dog while the tool keeps talking. "
    body = "HEAD-MARKER " + paragraph * 1400 + " MIDDLE-MARKER " + paragraph * 1400 + " TAIL-MARKER"
    assert len(body) > 200_000
    result = play(run, strategy, [text_message(body)])
    seen = observation(result)
    assert len(seen) < 40_000, "bounded to the observation budget"
    assert seen.startswith("HEAD-MARKER")
    assert "tokens were cut" in seen and "full result is in the agent log" in seen
    assert "MIDDLE-MARKER" not in seen
    logged = call_node(result).data["output"]["tool_response"]
    assert logged == body
    assert len(json.dumps(result.llm_requests[1])) < 60_000


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_large_result_with_a_small_context_window_still_fits_and_says_it_was_cut(run, strategy):
    """A 4k-context model: the observation is cut to a share of the window up front, so the
    next prompt fits without trimming, and the model still reads the head and that it was cut."""
    body = "HEAD-MARKER " + "lorem ipsum dolor sit amet " * 8000 + " TAIL-MARKER"
    result = play(
        run, strategy, [text_message(body)], model={"context_size": 4096, "completion_params": {"max_tokens": 512}}
    )
    seen = observation(result)
    assert seen.startswith("HEAD-MARKER") and "cut" in seen and "agent log" in seen
    assert [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"] == []
    assert estimate_tokens(seen) <= (4096 - 512) // 4
    assert call_node(result).data["output"]["tool_response"] == body


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_file_too_large_for_one_line_is_forwarded_in_chunks_exactly_once(run, strategy):
    """Over 3 MiB a forwarded blob would pass the daemon's 5 MiB stdout line as base64: it goes
    as ``blob_chunk`` messages (8 KiB each) that the daemon reassembles into one file."""
    data = sample_bytes(4 * 1024 * 1024 + 123)
    meta = {"filename": "video.mp4", "mime_type": "video/mp4"}
    pieces = [data[i : i + 8192] for i in range(0, len(data), 8192)]
    chunks = [chunk_message("big", n, len(data), piece, False, meta) for n, piece in enumerate(pieces)]
    chunks.append(chunk_message("big", len(pieces), len(data), b"", True, meta))
    result = play(run, strategy, chunks)
    (sent,) = result.files
    assert file_bytes(sent) == data and sent["meta"]["filename"] == "video.mp4"
    assert "blob" not in forwarded_types(result), "never one line of 5.6 MB base64"
    assert all(
        len(base64.b64decode(m["message"]["blob"])) <= 8192 for m in result.messages if m["type"] == "blob_chunk"
    )
    assert "video.mp4 (video/mp4, 4194427 bytes)" in observation(result)


def test_parallel_calls_each_forward_their_own_file_once_and_read_their_own_result(run):
    """Two calls of one round run concurrently: each file reaches the user once, each tool
    message names its own file (Function Calling: one tool message per call id)."""
    png, csv = sample_bytes(1200), b"a,b\n1,2\n"
    chart = ScriptedTool(
        name="chart",
        parameters=[],
        latency=0.2,
        responses=[blob_message(png, {"filename": "chart.png", "mime_type": "image/png"})],
    )
    table = ScriptedTool(
        name="table", parameters=[], responses=[blob_message(csv, {"filename": "table.csv", "mime_type": "text/csv"})]
    )
    calls = [{"id": "p1", "name": "chart", "arguments": "{}"}, {"id": "p2", "name": "table", "arguments": "{}"}]
    result = run([{"tool_calls": calls}, {"text": "Done."}], query="Both.", tools=[chart, table])
    assert result.ok, result.error_text
    assert sorted(f["meta"]["filename"] for f in result.files) == ["chart.png", "table.csv"]
    assert {f["meta"]["filename"]: file_bytes(f) for f in result.files} == {"chart.png": png, "table.csv": csv}
    tool_messages = {
        m["tool_call_id"]: m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "tool"
    }
    assert "chart.png" in tool_messages["p1"] and "table.csv" not in tool_messages["p1"]
    assert "table.csv" in tool_messages["p2"] and "chart.png" not in tool_messages["p2"]
    assert_no_base64(result, png)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_file_sent_before_a_tool_failure_still_reaches_the_user_and_the_model_learns_both(run, strategy):
    data = sample_bytes(800)
    failing = ScriptedTool(
        name="fetch",
        parameters=[],
        error="quota exceeded",
        responses=[text_message("partial rows"), blob_message(data, {"filename": "part.csv", "mime_type": "text/csv"})],
    )
    result = run(call_turns(strategy), query="Fetch it.", tools=[failing], strategy=strategy)
    assert result.ok, result.error_text
    assert result.text == "Done."
    (sent,) = result.files
    assert file_bytes(sent) == data
    seen = observation(result)
    assert seen.startswith("Error: the tool 'fetch' failed") and "quota exceeded" in seen
    assert "partial rows" in seen and "part.csv" in seen
    assert "Traceback" not in seen
    node = call_node(result)
    assert node.status == "error" and "quota exceeded" in node.error


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_items_that_are_null_or_not_objects_are_reported_and_the_rest_is_kept(run, strategy):
    """The daemon relays whatever a tool streams: an item whose data is null or not an object is
    named in the CALL node, and the messages after it still reach the model (the SDK's own
    reader would stop at the null item or fail the whole call)."""
    result = play(run, strategy, [text_message("first"), None, [1, 2], "loose text", text_message("last")])
    seen = observation(result)
    assert "first" in seen and "last" in seen
    node = call_node(result)
    assert node.status == "success"
    described = json.dumps(node.data)
    assert "null" in described and "list" in described and "str" in described
