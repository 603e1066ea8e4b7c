"""The wave-39 fuzz campaign: what tools send, composed whole and played through the real plugin
process.

The earlier campaigns drew a tool stream one hostile feature at a time; here each tool call of a
round sends a composed stream (docs/fuzzing.md, "Wave 39"):

* a random sequence of message types (``text``, ``json``, ``link``, ``image``, ``image_link``,
  ``blob``, ``blob_chunk``, ``file``, ``variable``, ``log``, ``retriever_resources``, and ones
  with null or wrong-typed data, an unknown type, or no message at all);
* texts of 0 bytes to about 1 MB with control characters, 4-byte characters, lone surrogates and
  escapes;
* files as whole blobs (sent once or twice) and as chunks in order, shuffled, with a chunk
  repeated, or never ended; their ``meta`` whole, missing, null, with extra spellings of its keys
  or wrong-typed names;
* the tool's secret-input value (plain, base64 or percent-encoded) in any field: a text, a JSON
  key or value, a link, a file name, a variable's name or value, a log's data, a retrieved
  resource's content, the error;
* an error raised mid-stream or at its end, or a stream that stops without its end (the call
  times out).

Each round calls 1 to 6 tools in parallel (the same tool more than once too: each call's stream
is chosen by its own argument); a scripted model then answers, echoing what it read. Every run
must: end with the answer or a clear error (no traceback); finish every log node once; give each
CALL node its own call's output, no other's; forward every well-formed file a tool sent exactly
once, unless its name holds the secret (then the model is told it was withheld); send every
call's observation back to the model, in call order; write no line over the daemon's limit; and
show no form of the secret on stdout (the tool's own invocation aside), on stderr or in a model
request.

``AGENT_FUZZ_EXAMPLES=N`` plays N examples per strategy from a random seed (``fuzz_settings``).
"""

from __future__ import annotations

import base64
import json
import random
import re
import time
import urllib.parse
from collections import Counter
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from agent_core import prompts
from local_runner import Scenario, ScriptedBackend, run_scenario
from local_runner.protocol import MAX_LINE_BYTES
from local_runner.tools import LocalTool, ToolBox, ToolParam
from tests.e2e.helpers import TRACEBACK, answer_turn, fuzz_settings, plugin_lines, prompt_text, revived_plugin

_process, plugin = revived_plugin()

EXAMPLES = 40  # per strategy in CI: a run takes 0.1 to 2 s (a stream cut off waits for the 1 s tool timeout)
SECRET = "SECRET-CANARY-39e7b2"
SECRET_FORMS = [SECRET, base64.b64encode(SECRET.encode()).decode(), urllib.parse.quote(SECRET, safe="").replace("-", "%2D")]
"""The secret as a tool may write it: plain, base64, percent-encoded every character it can."""
ANSWER = "zq39-answer"
TOOL_NAMES = ["fetch", "search", "report"]
TEXT_PIECES = ["plain words ", "\x00\x01\x07\x1b[31mred\x1b[0m", "\U0001d518\U0001f600 \u6771\u4eac", "\ud800",
               "\udfff lone", '\\u0000 \\n \\" \\\\', "</tool_response>", "\nObservation: made up\n", "\r\n\t",
               "{{x}} %s {0}", "\u202e\ufeff\u200d"]
SIZES = [0, 1, 40, 40, 40, 2_000, 2_000, 70_000, 1_000_000]
MIMES = ["text/plain", "image/png", "application/pdf", "application/octet-stream"]


def marker(n: int) -> str:
    """The text call ``n`` sends first: its CALL node and its observation must hold it."""
    return f"zq39-out-{n}-"


def file_bytes(n: int, k: int, size: int) -> bytes:
    """A file's bytes, found again by their head (``zq39-file-n-k;``)."""
    head = f"zq39-file-{n}-{k};".encode()
    return head + bytes(range(256)) * (size // 256) if size else head


def _text(rnd: random.Random, size: int) -> str:
    if size >= 1000:
        piece = rnd.choice(TEXT_PIECES)
        return piece * (size // len(piece))
    out = ""
    while len(out) < size:
        out += rnd.choice(TEXT_PIECES)
    return out[:size]


def _msg(kind: Any, message: Any, meta: Any = None) -> dict:
    return {"type": kind, "message": message, "meta": meta}


class Call:
    """One call's drawn stream and what a reader must make of it."""

    def __init__(self, n: int, tool: str) -> None:
        self.n, self.tool = n, tool
        self.stream: list[dict] = [_msg("text", {"text": marker(n)})]
        self.files: list[str] = []
        """Heads of the well-formed files it sent (each must reach the chat once)."""
        self.odd_files: list[str] = []
        """Heads of files sent with odd meta or chunks (at most once)."""
        self.withheld: list[str] = []
        """Heads of files whose name holds the secret (never forwarded)."""
        self.end = "ok"
        """``ok``, ``error`` (raised after the stream), ``hang`` (no end: the tool timeout cuts it)."""
        self.error = ""
        self.kinds: list[str] = []


def draw_call(data, n: int, tool: str) -> Call:  # noqa: C901 - one branch per message type
    """A composed stream for call ``n`` of ``tool``."""
    call = Call(n, tool)
    rnd = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    leak = data.draw(st.booleans(), label="leak")
    form = rnd.choice(SECRET_FORMS)
    kinds = data.draw(st.lists(st.sampled_from(
        ["text", "text", "json", "link", "image", "image_link", "blob", "blob_twice", "blob_chunk", "file", "variable",
         "log", "retriever", "odd"]), max_size=6), label="kinds")
    leak_at = rnd.randrange(len(kinds)) if leak and kinds else -1
    for k, kind in enumerate(kinds):
        secret = form if k == leak_at else ""
        call.kinds.append(kind + ("+secret" if secret else ""))
        size = rnd.choice(SIZES)
        if kind == "text":
            text = _text(rnd, size)
            at = rnd.randrange(len(text) + 1)
            call.stream.append(_msg("text", {"text": text[:at] + secret + text[at:]}))
        elif kind == "json":
            value: Any = rnd.choice([_text(rnd, min(size, 2000)), 1e308, None, [[[]]], {"deep": {"er": [1, "x"]}}, True])
            key = rnd.choice(["k", "", "\x00", "\U0001f600"]) + secret
            body = rnd.choice([{key: value, "v": secret}, [value, secret], {key: [secret]}]) if secret else {key: value}
            call.stream.append(_msg("json", {"json_object": body}))
        elif kind in ("link", "image", "image_link"):
            good = f"https://example.com/zq39-img-{n}-{k}.png"
            url = rnd.choice([good, good, good, f"https://example.com/zq39-img-{n}-{k} b.png?x=1", "not a url", "",
                              "data:image/png;base64,AAAA"])
            if secret:
                url = f"https://example.com/zq39-img-{n}-{k}-{secret}.png" if rnd.random() < 0.5 else f"{good}?key={secret}"
                call.withheld.append(f"zq39-img-{n}-{k}")
            elif url == good and kind != "link":
                call.files.append(f"zq39-img-{n}-{k}")
            elif "zq39-img" in url:
                call.odd_files.append(f"zq39-img-{n}-{k}")
            call.stream.append(_msg(kind, {"text": url}))
        elif kind in ("blob", "blob_twice", "blob_chunk"):
            data_bytes = file_bytes(n, k, rnd.choice([0, 300, 5_000, 200_000]))
            head = f"zq39-file-{n}-{k};"
            name = rnd.choice(["out.txt", "图 表.png", "a" * 200 + ".pdf", "report.csv"])
            meta_shape = rnd.choice(["whole", "whole", "whole", "none", "empty", "no_name", "no_mime", "extra", "wrong"])
            meta: Any = {"filename": (secret + name) if secret else name, "mime_type": rnd.choice(MIMES)}
            if meta_shape == "none":
                meta = None
            elif meta_shape == "empty":
                meta = {}
            elif meta_shape == "no_name":
                meta.pop("filename")
            elif meta_shape == "no_mime":
                meta.pop("mime_type")
            elif meta_shape == "extra":
                meta.update({"file_name": name, "mimeType": "text/plain", "filename ": "x"})
            elif meta_shape == "wrong":
                meta.update(rnd.choice([{"filename": 5}, {"mime_type": ["text/plain"]}, {"filename": None}]))
            named = isinstance(meta, dict) and isinstance(meta.get("filename"), str)
            bucket = call.withheld if secret and named else call.files if meta_shape in ("whole", "extra") else call.odd_files
            if kind == "blob_chunk":
                whole = _chunked(rnd, call, n, k, data_bytes, meta)
                if not whole and bucket is call.files:
                    bucket = call.odd_files
            else:
                message = _msg("blob", {"blob": base64.b64encode(data_bytes).decode()}, meta)
                call.stream += [message, message] if kind == "blob_twice" else [message]
            bucket.append(head)
        elif kind == "file":
            call.stream.append(_msg("file", {"file_marker": "file_marker"}, rnd.choice([{"file": None}, None, {"file": secret or "x"}])))
        elif kind == "variable":
            name = rnd.choice(["v", "", "var \U0001f600"]) + (secret if rnd.random() < 0.5 else "")
            value = rnd.choice([_text(rnd, min(size, 5000)), None, 3, {"nested": secret}, secret])
            call.stream.append(_msg("variable", {"variable_name": name, "variable_value": value, "stream": rnd.random() < 0.4}))
        elif kind == "log":
            call.stream.append(_msg("log", {"id": f"l{n}{k}", "label": rnd.choice(["tool log", None, secret]), "parent_id": None,
                                            "error": None, "status": rnd.choice(["success", "start", "odd"]),
                                            "data": rnd.choice([{"d": _text(rnd, min(size, 5000)) + secret}, None, secret]),
                                            "metadata": None}))
        elif kind == "retriever":
            call.stream.append(_msg("retriever_resources", {
                "retriever_resources": rnd.choice([[], [{"content": _text(rnd, min(size, 5000)) + secret, "title": "doc",
                                                         "position": 1, "score": 0.5}], None]),
                "context": rnd.choice(["", secret, None])}))
        else:
            call.stream.append(rnd.choice([
                _msg("text", None), _msg("text", {"text": 5}), _msg("json", {"json_object": "a string"}), _msg(None, None),
                _msg("hologram", {"text": secret or "?"}), {"no": "type"}, _msg("link", {"text": None}),
                _msg("blob", {"blob": "!!not base64!!"}, {"filename": "bad.bin", "mime_type": "text/plain"}),
                _msg("variable", {"variable_name": None, "variable_value": secret}), _msg("log", None)]))
    call.end = data.draw(st.sampled_from(["ok", "ok", "ok", "error", "error_mid", "hang"]), label="end")
    if call.end == "error_mid":  # the rest of the stream never comes
        cut = rnd.randrange(1, len(call.stream) + 1)
        call.stream = call.stream[:cut]
        sent = json.dumps(call.stream, ensure_ascii=False)
        for bucket in (call.files, call.odd_files, call.withheld):
            bucket[:] = [h for h in bucket if h in sent or _b64_head_in(h, call.stream)]
        call.end = "error"
    if call.end == "error":
        call.error = rnd.choice(["upstream 503", f"401: key {form} refused", "x" * 200_000, "\ud800 odd\x00", ""])
    call.kinds.append(call.end)
    return call


def _b64_head_in(head: str, stream: list[dict]) -> bool:
    """Whether a file whose bytes start with ``head`` was sent (whole or its first chunk) in ``stream``."""
    prefix = base64.b64encode(head.encode()[:15]).decode()[:20]
    return any(isinstance(m.get("message"), dict) and str(m["message"].get("blob", "")).startswith(prefix) for m in stream)


def _chunked(rnd: random.Random, call: Call, n: int, k: int, data_bytes: bytes, meta: Any) -> bool:
    """Append ``data_bytes`` as ``blob_chunk`` messages in a drawn order; whether the file was sent whole."""
    size = rnd.choice([7, 100, 4096]) if len(data_bytes) < 10_000 else 4096  # thousands of chunks outlast the timeout
    pieces = [data_bytes[at:at + size] for at in range(0, len(data_bytes), size)] or [b""]
    order = rnd.choice(["in_order", "in_order", "shuffled", "repeated", "no_end"])
    chunks = [{"id": f"f{n}-{k}", "sequence": seq, "total_length": len(data_bytes),
               "blob": base64.b64encode(piece).decode(), "end": False} for seq, piece in enumerate(pieces)]
    chunks.append({"id": f"f{n}-{k}", "sequence": len(pieces), "total_length": len(data_bytes), "blob": "", "end": True})
    if order == "shuffled":
        body = chunks[:-1]
        rnd.shuffle(body)
        chunks = [*body, chunks[-1]]
    elif order == "repeated":
        chunks.insert(rnd.randrange(len(chunks)), dict(chunks[0]))
    elif order == "no_end":
        chunks.pop()
    meta_on = rnd.choice(["every", "first", "last"])
    for at, chunk in enumerate(chunks):
        on = meta_on == "every" or (meta_on == "first" and at == 0) or (meta_on == "last" and at == len(chunks) - 1)
        call.stream.append(_msg("blob_chunk", chunk, meta if on else None))
    call.kinds.append(f"chunks:{order}:{meta_on}")
    return order != "no_end" and meta_on == "every"


def draw_round(data) -> list[Call]:
    count = data.draw(st.integers(1, 6), label="calls")
    return [draw_call(data, n, data.draw(st.sampled_from(TOOL_NAMES), label="tool")) for n in range(count)]


def toolbox_for(calls: list[Call]) -> ToolBox:
    """The tools of the round: each call's stream is chosen by its argument ``value`` (``k<n>``)."""
    by_key = {f"k{c.n}": c for c in calls}

    def handler(parameters: dict) -> Any:
        call = by_key[str(parameters.get("value"))]
        yield from call.stream
        if call.end == "error":
            raise RuntimeError(call.error)
        if call.end == "hang":
            time.sleep(2.5)  # past the node's 1 s tool timeout: the stream never ends in time

    return ToolBox([LocalTool(name=name, description=f"The {name} tool", handler=handler, runtime_parameters={"api_key": SECRET},
                              parameters=[ToolParam("value", description="which"),
                                          ToolParam("api_key", type="secret-input", form="form", description="key")])
                    for name in TOOL_NAMES])


class EchoingModel(ScriptedBackend):
    """Calls every tool of the round at once, then answers ``ANSWER`` followed by what it read."""

    def __init__(self, strategy: str, calls: list[Call]) -> None:
        super().__init__([])
        self.strategy, self.calls = strategy, calls

    def invoke_llm(self, request):
        if not self.requests:
            if self.strategy == "ReAct":
                actions = "\n".join("Action:\n```json\n" + json.dumps({"action": c.tool, "action_input": {"value": f"k{c.n}"}})
                                    + "\n```" for c in self.calls)
                self._turns.append({"text": f"Thought: I will use the tools.\n{actions}"})
            else:
                self._turns.append({"text": "", "tool_calls": [{"id": f"c{c.n}", "name": c.tool, "arguments": {"value": f"k{c.n}"}}
                                                               for c in self.calls]})
        else:
            read = [m for m in request["prompt_messages"] if m["role"] in ("tool", "assistant", "user")][-len(self.calls):]
            echo = " | ".join(str(m.get("content"))[:3000] for m in read)
            self._turns.append(answer_turn(self.strategy, f"{ANSWER} {echo}"))
        return super().invoke_llm(request)


def play(plugin, strategy: str, calls: list[Call]):
    plugin.transcript.clear()  # each run keeps its own lines: a long campaign of megabyte streams held gigabytes
    toolbox = toolbox_for(calls)
    backend = EchoingModel(strategy, calls)
    scenario = Scenario(query="Run the tools.", strategy=strategy, tools=TOOL_NAMES, maximum_iterations=3,
                        tool_timeout=1)
    try:
        result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    finally:
        backend.release()
        toolbox.release()
    return result, backend


def _file_heads(result) -> Counter:
    heads: Counter = Counter()
    for file in result.files:
        try:
            raw = base64.b64decode(file.get("blob") or "")
        except Exception:
            continue
        if raw.startswith(b"zq39-file-"):
            heads[raw.split(b";", 1)[0].decode() + ";"] += 1
    for message in result.messages:  # images by address
        body = message.get("message") or {}
        text = body.get("text") if isinstance(body, dict) else None
        if message.get("type") in ("image", "image_link", "link") and isinstance(text, str) and "zq39-img-" in text:
            heads[re.search(r"zq39-img-\d+-\d+", text).group()] += 1
    return heads


def check_run(plugin, strategy: str, calls: list[Call], result, backend) -> None:  # noqa: C901 - one block per invariant
    assert plugin.alive, "the plugin died (a line over the daemon's limit?)"
    assert result.done, "the run never ended"
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    finished = Counter(body.get("id") for body in result.log_history if body.get("status") in ("success", "error"))
    assert all(count == 1 for count in finished.values()), [k for k, v in finished.items() if v > 1]
    for message in result.messages:
        assert TRACEBACK not in json.dumps(message, ensure_ascii=False), str(message)[:300]
    # no line over the limit, no secret on any line the plugin wrote (the tool's own invocation aside)
    for entry, _ in plugin_lines(plugin, result):
        if entry["dir"] == "to_plugin":
            continue
        line = json.dumps(entry, ensure_ascii=False)
        assert len(line.encode("utf-8", "replace")) <= MAX_LINE_BYTES, "a line over the daemon's limit"
        for form in SECRET_FORMS:
            assert form not in line, (form, line[:300])
    stderr = "\n".join(plugin.stderr_tail(200))
    for form in SECRET_FORMS:
        assert form not in stderr, form
        for request in backend.requests:
            assert form not in json.dumps(request, ensure_ascii=False), form
    if not result.ok:
        text = result.error_text or ""
        assert text.strip() and TRACEBACK not in text, text[:500]
        return
    assert ANSWER in result.text, result.text[-500:]
    # every CALL node holds its own call's output, no other's
    nodes = [node for node in result.logs.values() if node.label.startswith("CALL ")]
    responses: dict[int, str] = {}
    errors: dict[int, Any] = {}
    assert len(nodes) == len(calls), [n.label for n in nodes]
    for node in nodes:
        output = (node.data or {}).get("output") or {}
        key = str((output.get("tool_call_input") or {}).get("value"))
        call = next((c for c in calls if f"k{c.n}" == key), None)
        assert call is not None, (node.label, json.dumps(node.data, ensure_ascii=False)[:300])
        response = json.dumps(output.get("tool_response"), ensure_ascii=False)
        assert node.label == f"CALL {call.tool}", (node.label, call.tool)
        assert marker(call.n) in response, (call.n, call.kinds, response[:300])
        responses[call.n], errors[call.n] = response, node.error
        others = [c.n for c in calls if c.n != call.n and marker(c.n) in response]
        assert not others, (call.n, others)
    # every observation goes back, in call order
    later = prompt_text(backend.requests[1])
    at = 0
    for call in calls:
        found = later.find(marker(call.n), at)
        assert found >= 0, (call.n, call.kinds, later[:1500])
        at = found
    if strategy != "ReAct":
        ids = [m.get("tool_call_id") for m in backend.requests[1]["prompt_messages"] if m["role"] == "tool"]
        assert ids == [f"c{c.n}" for c in calls], ids
    # every well-formed file reaches the chat once; one named with the secret never, and the model is told
    heads = _file_heads(result)
    for call in calls:
        if "timed out" in str(errors[call.n]):  # the 1 s timeout may cut a stream before all of it came
            assert all(heads[head] <= 1 for head in call.files + call.odd_files), (call.kinds, dict(heads))
            continue
        for head in call.files:
            assert heads[head] == 1, (head, call.kinds, dict(heads))
        for head in call.odd_files:
            assert heads[head] <= 1, (head, call.kinds, dict(heads))
        for head in call.withheld:
            assert heads[head] == 0, (head, call.kinds)
        if call.withheld:  # the model and the log are told
            assert prompts.WITHHELD.split(" (")[0] in later, call.kinds
            if "more characters not shown here" not in responses[call.n]:  # a cut entry keeps only its last 2,000 characters
                assert prompts.WITHHELD.split(" (")[0] in responses[call.n], call.kinds
        if call.end != "ok":  # failed or cut off: the CALL node says so
            assert errors[call.n], (call.n, call.kinds)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_composed_tool_streams_keep_the_invariants(plugin, strategy, data):
    calls = draw_round(data)
    for call in calls:
        for kind in call.kinds:
            event(kind.split(":")[0])
    result, backend = play(plugin, strategy, calls)
    event("answered" if result.ok else "ended in an error")
    check_run(plugin, strategy, calls, result, backend)


# --- what the campaign found, pinned as plain runs --------------------------------------------


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_a_megabyte_of_line_breaks_keeps_its_call_node(plugin, strategy):
    """A megabyte of line breaks and tabs (two bytes each as JSON) past the output's kept size:
    the CALL node's data came out a few bytes over the log's limit and was replaced whole by a
    note (no call id, no input, no output); it now keeps them with its output cut."""
    call = Call(0, "fetch")
    call.stream += [_msg("text", {"text": "\U0001d518"}), _msg("text", {"text": "\r\n\t" * 333_333})]
    result, backend = play(plugin, strategy, [call])
    check_run(plugin, strategy, [call], result, backend)
    node = next(node for node in result.logs.values() if node.label == "CALL fetch")
    assert node.data["output"]["tool_response"].startswith(marker(0) + "\U0001d518\r\n\t")


@pytest.mark.parametrize("strategy", ["function_calling"])
def test_a_withheld_link_after_megabytes_of_text_is_told_in_the_log(plugin, strategy):
    call = Call(0, "fetch")
    call.stream += [_msg("text", {"text": "\u202e\ufeff\u200d" * 333_333}),
                    _msg("link", {"text": f"https://example.com/x.png?key={SECRET}"})]
    result, backend = play(plugin, strategy, [call])
    check_run(plugin, strategy, [call], result, backend)
    assert prompts.WITHHELD.split(" (")[0] in prompt_text(backend.requests[1])  # the model is told
    node = next(node for node in result.logs.values() if node.label == "CALL fetch")
    assert prompts.WITHHELD.split(" (")[0] in node.data["output"]["tool_response"]
