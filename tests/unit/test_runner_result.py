"""Local runner: wire-format helpers (protocol.py) and RunResult bookkeeping (result.py)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from dify_plugin.entities.model.llm import LLMResultChunk

from local_runner import protocol
from local_runner.backends import make_chunk, make_usage
from local_runner.result import RunResult

ENVELOPE = protocol.SessionEnvelope("sid-1", tool_credentials={"a/b/c": "cred-1"})


def test_request_line_has_the_daemon_shape() -> None:
    line = protocol.agent_request(ENVELOPE, strategy="function_calling", params={"query": "hi"}, user_id="u1")
    assert line == {
        "session_id": "sid-1",
        "conversation_id": "conv-local",
        "message_id": None,
        "app_id": "app-local",
        "endpoint_id": None,
        "context": {"credentials": {"tool_credentials": {"a/b/c": "cred-1"}}},
        "event": "request",
        "data": {
            "user_id": "u1",
            "type": "agent_strategy",
            "action": "invoke_agent_strategy",
            "agent_strategy_provider": "agent",
            "agent_strategy": "function_calling",
            "agent_strategy_params": {"query": "hi"},
        },
    }


def test_backwards_response_lines() -> None:
    line = protocol.backwards_response(ENVELOPE, "rid", "response", message="stream", data={"x": 1})
    assert line["event"] == "backwards_response" and line["session_id"] == "sid-1"
    assert line["data"] == {"backwards_request_id": "rid", "event": "response", "message": "stream", "data": {"x": 1}}
    assert protocol.backwards_response(ENVELOPE, "rid", "end")["data"] == {
        "backwards_request_id": "rid",
        "event": "end",
        "message": "",
        "data": None,
    }


def test_line_encoding_and_classification() -> None:
    assert protocol.encode_line({"a": "é"}) == '{"a":"é"}\n'.encode()
    assert protocol.decode_line(b"  \n") is None
    assert protocol.decode_line(b'{"event":"heartbeat"}\n') == {"event": "heartbeat"}
    assert protocol.decode_line(b"hello from print()\n") == "hello from print()"
    assert protocol.decode_line(b"[1, 2]\n") == "[1, 2]"
    assert protocol.is_manifest({"version": "0.1.0", "resource": {}})
    assert not protocol.is_manifest({"event": "log", "data": {}})


def test_permission_errors_follow_the_manifest() -> None:
    allowed = {"resource": {"permission": {"tool": {"enabled": True}, "model": {"enabled": True, "llm": True}}}}
    assert protocol.permission_error(allowed, "llm") is None and protocol.permission_error(allowed, "tool") is None
    no_llm = {"resource": {"permission": {"model": {"enabled": True, "llm": False}}}}
    assert (
        protocol.permission_error(no_llm, "llm")
        == "permission denied, you need to enable llm access in plugin manifest"
    )
    assert (
        protocol.permission_error(no_llm, "tool")
        == "permission denied, you need to enable tool access in plugin manifest"
    )


def test_daemon_chunk_reserializes_like_the_go_daemon() -> None:
    raw = make_chunk(
        "m",
        3,
        tool_calls=[{"index": 0, "function": {"arguments": '{"a"'}}],
        usage={**make_usage(1, 2), "prompt_price": 0.0},
    )
    raw["delta"]["message"]["name"] = None
    chunk = protocol.daemon_chunk(raw)
    assert chunk["delta"]["message"]["tool_calls"] == [
        {"id": "", "type": "", "function": {"name": "", "arguments": '{"a"'}}
    ]
    assert chunk["delta"]["message"]["name"] == "" and chunk["prompt_messages"] == []
    assert chunk["delta"]["usage"]["prompt_price"] == "0" and chunk["delta"]["usage"]["prompt_price_unit"] == "0.000001"
    LLMResultChunk(**chunk)


def log(log_id: str, label: str, status: str, parent: str | None = None, **extra: Any) -> dict[str, Any]:
    body = {
        "id": log_id,
        "label": label,
        "parent_id": parent,
        "error": None,
        "status": status,
        "data": {},
        "metadata": {},
        **extra,
    }
    return {"type": "log", "message": body, "meta": None}


def test_log_tree_keeps_final_states_in_first_seen_order() -> None:
    result = RunResult("s", "function_calling")
    for message in [
        log("r1", "ROUND 1", "start"),
        log("t1", "gpt Thought", "start", "r1"),
        log("t1", "gpt Thought", "success", "r1", metadata={"total_tokens": 49, "elapsed_time": 0.5}),
        log("c1", "CALL calc", "start", "r1"),
        log("c1", "CALL calc", "error", "r1", error="boom"),
        log("r1", "ROUND 1", "success"),
        log("r2", "ROUND 2", "start"),
    ]:
        result.add_message(message)
    assert result.log_tree_snapshot() == [
        {
            "label": "ROUND 1",
            "status": "success",
            "children": [
                {"label": "gpt Thought", "status": "success", "children": []},
                {"label": "CALL calc", "status": "error", "children": []},
            ],
        },
        {"label": "ROUND 2", "status": "start", "children": []},
    ]
    assert [node.id for node in result.unfinished_logs()] == ["r2"]
    assert result.logs["t1"].tokens == 49 and result.logs["t1"].elapsed == 0.5
    assert result.logs["c1"].error == "boom"
    assert len(result.log_history) == 7


def test_a_child_seen_before_its_parent_is_adopted() -> None:
    result = RunResult("s", "x")
    result.add_message(log("child", "child", "success", "parent"))
    result.add_message(log("parent", "parent", "success"))
    assert result.log_tree_snapshot() == [
        {"label": "parent", "status": "success", "children": [{"label": "child", "status": "success", "children": []}]}
    ]


def test_text_json_files_variables_and_blobs() -> None:
    result = RunResult("s", "x")
    payload = b"x" * 10000
    chunks = [payload[:8192], payload[8192:]]
    messages = [
        {"type": "text", "message": {"text": "Hello "}, "meta": None},
        {"type": "json", "message": {"json_object": {"execution_metadata": {"total_tokens": 98}}}, "meta": None},
        {"type": "text", "message": {"text": "world"}, "meta": None},
        {"type": "image_link", "message": {"text": "http://x/a.png"}, "meta": None},
        {"type": "variable", "message": {"variable_name": "v", "variable_value": "ab", "stream": True}, "meta": None},
        {"type": "variable", "message": {"variable_name": "v", "variable_value": "cd", "stream": True}, "meta": None},
    ] + [
        {
            "type": "blob_chunk",
            "message": {
                "id": "b",
                "sequence": n,
                "total_length": 10000,
                "blob": base64.b64encode(part).decode(),
                "end": n == 1,
            },
            "meta": {"mime_type": "text/plain"},
        }
        for n, part in enumerate(chunks)
    ]
    for message in messages:
        result.add_message(message)
    assert result.text == "Hello world"
    assert result.execution_metadata == {"total_tokens": 98}
    assert result.variables == {"v": "abcd"}
    assert result.files[0] == {"type": "image_link", "text": "http://x/a.png", "meta": None}
    assert result.files[1]["size"] == 10000 and base64.b64decode(result.files[1]["blob"]) == payload
    assert len(result.messages) == len(messages)


def test_outcome_and_json_form(tmp_path: Path) -> None:
    result = RunResult("s", "x")
    result.set_error({"error_type": "ValueError", "message": "bad", "args": {}})
    assert result.finish() and not result.finish(failure="later")
    assert result.ended and not result.ok and result.error_text == "ValueError: bad"
    failed = RunResult("t", "x")
    failed.finish(failure="plugin process exited with code 3")
    assert failed.error_text == "plugin process exited with code 3" and not failed.ended
    json.dumps(result.to_dict())
    result.add_transcript({"t": 0.1, "dir": "to_plugin", "json": {"event": "request"}})
    saved = json.loads(result.save_transcript(tmp_path / "t.json").read_text())
    assert saved["lines"] == [{"t": 0.1, "dir": "to_plugin", "json": {"event": "request"}}]
