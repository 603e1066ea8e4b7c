"""Minimal runs of what the wave-34 fuzzing found, through the real plugin.

* A tool that shows a key base64-encoded, its block's last line ending in ``=`` padding: the
  redaction read ``=`` and the line break as a quoted-printable soft line break and took the next
  line's first character with the key (``-----END CERTIFICATE-----`` lost a dash; the model read
  ``nd-of-cert``).
* A piece of streamed arguments that is a space alone, under an id after the head (Poolside) or a
  fresh id per piece, was a call of its own: the call split in two and neither ran.
* MiniMax-M3's element written twice, each time with the parameter's schema, gave the list of both
  as the value: the tool ran with the schema's text (a schema echo is never run).
"""

import base64
import json

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn

KEY = "sk-live-7Hq2Rw9Zt4xy"


def _certificate_tool() -> ScriptedTool:
    encoded = base64.b64encode(KEY.encode()).decode()
    assert encoded.endswith("=")
    wrapped = "\n".join(encoded[i : i + 7] for i in range(0, len(encoded), 7))
    return ScriptedTool(name="cert", description="Shows the certificate",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("api_key", type="secret-input", form="form", description="key")],
                        runtime_parameters={"api_key": KEY},
                        responses=[text_message(f"-----BEGIN-----\n{wrapped}\n-----END-----\nend-of-cert")])


def _call(strategy: str) -> dict:
    if strategy == "ReAct":
        return {"text": 'Action: cert\nAction Input: {"q": "x"}'}
    return {"tool_calls": [{"id": "c1", "name": "cert", "arguments": {"q": "x"}}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_line_after_a_wrapped_base64_key_reaches_the_model_whole(run, strategy):
    result = run([_call(strategy), answer_turn(strategy, "done")], tools=[_certificate_tool()], strategy=strategy)
    assert result.ok and result.unfinished_logs() == []
    request = json.dumps(result.llm_requests[-1], ensure_ascii=False)
    assert KEY not in request and base64.b64encode(KEY.encode()).decode()[7:14] not in request
    assert "[REDACTED]\\n-----END-----\\nend-of-cert" in request, request[-400:]


def test_a_parameters_schema_written_twice_in_minimax_m3_markup_runs_nothing(run):
    """The shrunk ReAct run: the element written twice, each with the parameter's schema."""
    ns = "]<]minimax[>["
    schema = '{"type": "string", "description": "What to look for", "maxLength": 80}'
    reply = (f'Thought: I should check.\n{ns}<tool_call>\n{ns}<invoke name="lookup">'
             f"{ns}<q>{schema}{ns}</q>{ns}<q>{schema}{ns}</q>{ns}</invoke>\n{ns}</tool_call>")
    lookup = ScriptedTool(name="lookup", description="Looks up", parameters=[ToolParam("q", description="What to look for")],
                          responses=[text_message("lookup-result")])
    result = run([{"text": reply}, answer_turn("ReAct", "done")], tools=[lookup], strategy="ReAct")
    assert result.ok and result.unfinished_logs() == []
    assert result.tool_requests == []
    (call,) = [n for n in result.logs.values() if n.label == "CALL lookup"]
    assert call.status == "error" and "schema" in (call.error or ""), call.error


@pytest.mark.parametrize("ids", ["second_id", "id_per_piece"])
def test_a_blank_piece_under_a_later_id_runs_the_call_once(run, ids):
    """Poolside's id after the head, or a fresh id on every piece, with a piece that is a space
    alone: it was a call of its own, both halves refused as malformed, and nothing ran."""
    lookup = ScriptedTool(name="lookup", description="Looks up", parameters=[ToolParam("q", description="query")],
                          responses=[text_message("lookup-result")])
    pieces = ['{"q":', " ", '"rover"}']
    chunks = [{"tool_calls": [{"id": "head-1", "type": "function", "function": {"name": "lookup", "arguments": ""}}]}]
    chunks += [{"tool_calls": [{"id": "later-2" if ids == "second_id" else f"piece-{n}", "type": "function",
                                "function": {"arguments": piece}}]} for n, piece in enumerate(pieces)]
    chunks[-1]["finish_reason"] = "tool_calls"
    result = run([{"chunks": chunks}, answer_turn("function_calling", "done")], tools=[lookup], strategy="function_calling")
    assert result.ok and result.unfinished_logs() == []
    assert [r.get("tool_parameters") for r in result.tool_requests] == [{"q": "rover"}]
    tool_messages = [m for m in result.llm_requests[-1]["prompt_messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["head-1"]
