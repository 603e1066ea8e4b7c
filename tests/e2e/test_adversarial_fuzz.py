"""Generated adversarial runs of both strategies through one plugin process of their own, checked
against what keeps a real deployment alive: no line over the daemon's limit (the runner kills
the plugin, as the daemon does), a secret never leaves its tool call, a cut reply is never run
or passed off as complete, and every run ends with an answer or a clear error.

Each example mixes the classes an adversarial review found: megabyte and control-character tool
outputs, a tool that echoes its secret, parallel calls, answers in one huge chunk, replies cut
by the output limit (answers and calls), several ReAct actions in one turn, inputs that repeat
the tool's schema, invented observations, JSON nested deeper than the SDK parses or writes (in
a tool's result and in a call's arguments).

The hostile runs (``test_hostile_runs_keep_the_invariants``, both strategies, streamed and
blocking) add: finish reasons of a cut in every spelling plugins send (``length``,
``max_tokens``, ``MAX_TOKENS``, ``FinishReason.MAX_TOKENS``, padded) and ``stop`` with a usage at
the node's ``max_tokens``, next to whole replies ending with ``null``, ``None``, none at all or
``FinishReason.STOP``; model errors shaped like the SDK's error objects, with tracebacks; usage
repeated as a running total on every chunk; ``<think>`` blocks and ``reasoning_content`` around
native calls; call ids over 1 KB; the secret in a tool's error, a file's name, a link, an image
link, a JSON key, base64- and percent-encoded, split over text and variable messages, and in the
model's own answer split over stream items; tool messages of every type with null or odd data.
Each must end with an answer or a clear error, show no traceback, leak no form of the secret,
never show a cut reply as an answer (it is continued or marked incomplete) nor run its calls,
and keep every tool result and file.

CI runs a fixed, derandomized set of examples. The long mode draws fresh ones from a random seed:

    AGENT_FUZZ_EXAMPLES=1000 .venv/bin/python -m pytest --timeout=0 --hypothesis-show-statistics \
        tests/e2e/test_adversarial_fuzz.py tests/e2e/test_invariants_fuzz.py

(``--hypothesis-seed=S`` replays a seed; a failure prints the ``@reproduce_failure`` line that
replays it.) Shrunk failures are pinned as plain tests at the end of the file.
"""

import base64
import json
import re
import urllib.parse
from collections import Counter

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from agent_core import prompts
from local_runner import PluginProcess
from local_runner.backends import make_usage
from local_runner.daemon import DEFAULT_PLUGIN_DIR
from local_runner.scenario import DEFAULT_FEATURES
from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import fuzz_settings

EXAMPLES = 30  # per strategy: each example may move megabytes
HOSTILE_EXAMPLES = 15  # per strategy and streamed/blocking
SECRET = "SECRET-CANARY-93c1d7"


@pytest.fixture(scope="module")
def plugin():
    """A process of its own: if a line ever broke the limit, only this module's runs would fail."""
    with PluginProcess(DEFAULT_PLUGIN_DIR) as process:
        yield process


def forget_lines(plugin) -> None:
    """Drop the lines the module's plugin connection recorded (each run's result keeps its own):
    runs of megabytes made a long campaign's runner hold gigabytes of them."""
    plugin.transcript.clear()


def _tool(name: str, output: str, **kwargs) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"The {name} tool", parameters=[ToolParam("q", description="query")],
                        responses=[text_message(output)], **kwargs)


def _nested(levels: int) -> dict:
    """JSON nested deeper than pydantic-core (the SDK's parser and encoder) goes: about 254 levels."""
    value: dict = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


TOOLS = {
    "small": lambda: _tool("small", "small-result"),
    "huge": lambda: _tool("huge", "x" * 1_200_000),
    "escapes": lambda: _tool("escapes", "\x01\x02\x1b" * 300_000),
    "deep": lambda: ScriptedTool(name="deep", description="The deep tool", parameters=[ToolParam("q", description="query")],
                                 responses=[json_message(_nested(300)), text_message("deep-done")]),
    "leaky": lambda: ScriptedTool(
        name="leaky", description="Echoes its key",
        parameters=[ToolParam("q", description="query"),
                    ToolParam("api_key", type="secret-input", form="form", description="key")],
        runtime_parameters={"api_key": SECRET}, responses=[text_message(f"used key {SECRET} for the query")]),
}


def _call(strategy: str, names: list[str], style: str) -> dict:
    if style == "deep":  # arguments nested past what the SDK can write
        deep = json.dumps({"q": _nested(300)})
        if strategy != "ReAct":
            return {"tool_calls": [{"id": "c0", "name": names[0], "arguments": deep}]}
        return {"text": f"Thought: x\nAction:\n```json\n{{\"action\": \"{names[0]}\", \"action_input\": {deep}}}\n```"}
    if strategy != "ReAct":
        return {"tool_calls": [{"id": f"c{n}", "name": name, "arguments": {"q": f"v{n}"}} for n, name in enumerate(names)]}
    if style == "echo":
        return {"text": f"Thought: x\nAction: {names[0]}\nAction Input: " + json.dumps({"q": {"type": "string", "description": "query"}})}
    blobs = "\n".join("Action:\n```json\n" + json.dumps({"action": name, "action_input": {"q": f"v{n}"}}) + "\n```"
                      for n, name in enumerate(names))
    invented = "\nObservation: made up\nFinal Answer: made up" if style == "invented" else ""
    return {"text": f"Thought: x\n{blobs}{invented}"}


def _answer(strategy: str, text: str) -> dict:
    return {"text": f"Thought: done\nFinal Answer: {text}" if strategy == "ReAct" else text}


@st.composite
def turns(draw, strategy: str) -> tuple[list[dict], list[str]]:
    offered = draw(st.lists(st.sampled_from(sorted(TOOLS)), min_size=1, max_size=4, unique=True))
    plan = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["call", "call", "cut_call", "cut_answer"]))
        names = draw(st.lists(st.sampled_from(offered), min_size=1, max_size=3))
        style = draw(st.sampled_from(["plain", "echo", "invented", "deep"]))
        if kind == "call":
            plan.append(_call(strategy, names, style))
        elif kind == "cut_call":
            text = _call("ReAct", names, "plain")["text"]
            plan.append({"text": text[: len(text) * 2 // 3], "finish_reason": "length"})
        else:
            plan.append({**_answer(strategy, "partial answer"), "finish_reason": "length"})
    size = draw(st.sampled_from([20, 5_000_000]))
    plan.append(_answer(strategy, "final " + "y" * size if size > 20 else "final answer"))
    plan += [_answer(strategy, "extra")] * 3  # continuation and retry rounds may need more turns
    return plan, offered


def check(result, plugin) -> None:
    assert plugin.alive, "the plugin was killed (a line over the daemon's limit?)"
    assert result.unfinished_logs() == []
    assert result.ok or result.error_text
    if result.error:  # a clear error of the strategy's own, not an exception that escaped (ours or the SDK's)
        assert result.error.get("error_type") == "AgentRunError", result.error_text
        assert not re.match(r"[A-Z]\w*(Error|Exception): ", result.error.get("message", "")), result.error_text
    if result.ok:
        assert result.text.strip()
    for entry in result.transcript:  # what the plugin wrote, but the tool call that needs the secret
        data = ((entry.get("json") or {}).get("data") or {}).get("data") or {}
        if entry["dir"] == "from_plugin" and data.get("type") != "tool":
            assert SECRET not in json.dumps(entry, ensure_ascii=False)
    assert SECRET not in "\n".join(plugin.stderr_tail(200))
    for request in result.llm_requests:
        assert SECRET not in json.dumps(request)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_adversarial_runs_never_kill_leak_or_pass_off_a_cut_reply(run, plugin, strategy, data):
    plan, offered = data.draw(turns(strategy), label="turns")
    run.plugin = plugin
    result = run(plan, tools=[TOOLS[name]() for name in offered], strategy=strategy, timeout=120, maximum_iterations=6)
    forget_lines(plugin)
    check(result, plugin)
    cut_answer_only = [t for t in plan if t.get("finish_reason") == "length"]
    if result.ok and not cut_answer_only:
        assert prompts.ANSWER_CUT_OFF not in result.text


# --- hostile runs: every spelling of a cut, SDK-shaped model errors, secrets in every channel ---

MAX_TOKENS = 1024  # the node's output limit (max_tokens, or its name in another plugin's parameters)
CUT_REASONS = ["length", "max_tokens", "MAX_TOKENS", "FinishReason.MAX_TOKENS", " length\n", "LENGTH"]
"""Finish reasons that mean the reply was cut by the output limit, as model plugins spell them."""
WHOLE_REASONS = ["stop", "null", "None", None, "STOP", "end_turn", "FinishReason.STOP", "stop_sequence"]
"""Finish reasons of a whole reply (``None`` sends none), with a usage short of the limit."""
GOOGLE_PROVIDER = "langgenius/vertex_ai/vertex_ai"
"""A Google plugin: its finish reasons may come as the enum's numbers ("2" is MAX_TOKENS, "1" STOP)."""
CUT_MARK = "CUTMARK-partial"  # text only a cut reply holds
INCOMPLETE = prompts.ANSWER_CUT_OFF.split(":")[0]  # "[The answer above is incomplete", every notice's start
CUT_ARG = "cut-argument"  # the argument only a cut call carries
ENCODED_SECRETS = [
    SECRET,
    base64.b64encode(SECRET.encode()).decode(),
    urllib.parse.quote(SECRET, safe="").replace("-", "%2D"),
    SECRET.replace("-", "\\u002d"),
]
_WRAPPED = "\n".join(ENCODED_SECRETS[1][i : i + 7] for i in range(0, len(ENCODED_SECRETS[1]), 7))
ENCODED_SECRETS += [
    SECRET.replace("C", "\u212d").replace("R", "\u211b").replace("E", "\u2130"),  # letterlike letters
    SECRET.replace("-", "\u2043"),  # another dash
    _WRAPPED,  # base64 wrapped at a width that is no multiple of four, its "=" before a line break
]
"""The canary as a tool may write it: plain, base64, percent-encoded every character it can, JSON-escaped,
in letterlike letters, with another dash, base64 wrapped."""
SHOWN_FORMS = [*ENCODED_SECRETS[1:-1], *_WRAPPED.splitlines()[1:-1]]
"""What of each form must never be shown (a wrapped block by its inner lines: JSON escapes its line breaks)."""
TRACEBACK = ('Traceback (most recent call last):\n  File "/app/models/llm.py", line 88, in _invoke\n'
             '    raise InvokeServerUnavailableError(str(ex))\n'
             'dify_plugin.errors.model.InvokeServerUnavailableError: upstream 503')
SDK_ERRORS = [
    'PluginInvokeError: {"args": {"traceback": ' + json.dumps(TRACEBACK) + '}, '
    '"error_type": "InvokeServerUnavailableError", "message": "[openai] Server Unavailable Error, upstream 503"}',
    "[models] Error: " + TRACEBACK,
    'req_id: 7f3a PluginInvokeError: {"args":{},"error_type":"InvokeRateLimitError","message":"Rate limit reached"}',
    "During handling of the above exception, another exception occurred:\n\n" + TRACEBACK,
    '{"error_type": "InvokeBadRequestError", "message": null, "args": {"traceback": "Traceback (most recent call',
    # a server's traceback quoted in its JSON error body, in the plugin's error object, in Dify's traceback
    TRACEBACK.replace("upstream 503", "") + "PluginInvokeError: " + json.dumps(
        {"args": {}, "error_type": "InvokeServerUnavailableError",
         "message": "[openai_api_compatible] Error: " + json.dumps({"error": {"message": TRACEBACK, "code": 500}})}),
    TRACEBACK.replace("\n", "\r\n"),
]


def _secret_tool(name: str, responses: list[dict], **kwargs) -> ScriptedTool:
    return ScriptedTool(name=name, description=f"The {name} tool",
                        parameters=[ToolParam("q", description="query"),
                                    ToolParam("api_key", type="secret-input", form="form", description="key")],
                        runtime_parameters={"api_key": SECRET}, responses=responses, **kwargs)


def _msg(kind: str, message, meta=None) -> dict:
    return {"type": kind, "message": message, "meta": meta}


ODD_MESSAGES = [  # every message type, with null or odd data
    _msg("text", {"text": ""}),
    _msg("text", None),
    _msg("text", {"text": None}),
    _msg("json", {"json_object": None}),
    _msg("link", {"text": "https://example.com/" + "%" * 3}),
    _msg("hologram", {"text": "a type the SDK does not know"}),
    _msg("log", {"id": "l2", "label": None, "status": "odd", "data": None}),
    _msg("blob_chunk", {"id": "g", "sequence": 5, "total_length": -1, "blob": "!!", "end": False}, None),
    _msg("text", {"text": "\x00\ud7ff\ufeff\u202e odd"}),
    _msg("json", {"json_object": []}),
    _msg("json", {"json_object": {"": None, "n": float("1e308"), "nested": [[[]]]}}),
    _msg("link", {"text": ""}),
    _msg("link", {"text": "javascript:alert(1)"}),
    _msg("image", {"text": "not a url"}),
    _msg("image_link", {"text": "https://example.com/a b.png"}),
    _msg("variable", {"variable_name": "v", "variable_value": None, "stream": False}),
    _msg("variable", {"variable_name": "s", "variable_value": "piece", "stream": True}),
    _msg("log", {"id": "l1", "label": "tool log", "parent_id": None, "error": None, "status": "success",
                 "data": {}, "metadata": None}),
    _msg("retriever_resources", {"retriever_resources": [], "context": ""}),
    _msg("blob", {"blob": ""}, {"filename": "", "mime_type": None}),
    _msg("blob", {"blob": base64.b64encode(b"x").decode()}, None),
    _msg("file", {"file_marker": "file_marker"}, {"file": None}),
    _msg("blob_chunk", {"id": "f", "sequence": 0, "total_length": 0, "blob": "", "end": True},
         {"filename": "empty.txt", "mime_type": "text/plain"}),
]

HOSTILE_TOOLS = {
    "small": lambda: _tool("small", "small-result"),
    "leaky": TOOLS["leaky"],
    "err_leak": lambda: _secret_tool("err_leak", [text_message("partial")], error=f"401: key {SECRET} refused"),
    "huge_err": lambda: _secret_tool("huge_err", [], error="x" * 6_000_000 + f" key {SECRET}"),
    "file_leak": lambda: _secret_tool("file_leak", [
        {"type": "blob", "message": {"blob": base64.b64encode(b"a,b\n").decode()},
         "meta": {"filename": f"{SECRET}.csv", "mime_type": "text/csv"}}, text_message("file-written")]),
    "link_leak": lambda: _secret_tool("link_leak", [
        _msg("link", {"text": f"https://example.com/?key={ENCODED_SECRETS[2]}"}),
        _msg("image_link", {"text": f"https://example.com/{SECRET}.png"}), text_message("links-sent")]),
    "json_leak": lambda: _secret_tool("json_leak", [
        json_message({SECRET: 1, "b64": ENCODED_SECRETS[1], "escaped": SECRET, "list": [SECRET]})]),
    "split_leak": lambda: _secret_tool("split_leak", [
        text_message("key " + SECRET[:9]), text_message(SECRET[9:] + " used"),
        _msg("variable", {"variable_name": "k", "variable_value": SECRET[:5], "stream": True}),
        _msg("variable", {"variable_name": "k", "variable_value": SECRET[5:], "stream": True})]),
    "form_leak": lambda: _secret_tool("form_leak", [text_message(
        f"cert:\n{_WRAPPED}\nend-of-cert\nkey {ENCODED_SECRETS[4]} or {ENCODED_SECRETS[5]}.")]),
    "odd": lambda: _tool("odd", "odd-done"),  # responses replaced by a drawn mix of ODD_MESSAGES
    "csv": lambda: ScriptedTool(name="csv", description="The csv tool", parameters=[ToolParam("q", description="query")],
                                responses=[{"type": "blob", "message": {"blob": base64.b64encode(b"1,2\n").decode()},
                                            "meta": {"filename": "kept.csv", "mime_type": "text/csv"}},
                                           text_message("csv-written")]),
}
SECRET_TOOLS = {"leaky", "err_leak", "huge_err", "file_leak", "link_leak", "json_leak", "split_leak", "form_leak"}
KEPT = {"small": "small-result", "odd": "odd-done", "csv": "csv-written", "file_leak": "file-written", "link_leak": "links-sent",
        "form_leak": "end-of-cert"}
"""A marker each tool's result must carry back to the model (and to the CALL node)."""


def _usage_at(completion: int) -> dict:
    return {"prompt_tokens": 50, "completion_tokens": completion}


def _calls(strategy: str, names: list[str], value: str, id_size: int) -> dict:
    if strategy != "ReAct":
        return {"tool_calls": [{"id": f"c{n}" + "i" * id_size, "name": name, "arguments": {"q": value}}
                               for n, name in enumerate(names)]}
    return {"text": "Thought: x\n" + "\n".join(f"Action: {name}\nAction Input: " + json.dumps({"q": value})
                                               for name in names[:1])}


def _cut_reasons(google: bool) -> st.SearchStrategy[str]:
    return st.sampled_from([*CUT_REASONS, "2"] if google else CUT_REASONS)


def _whole_reasons(google: bool) -> st.SearchStrategy[str | None]:
    return st.sampled_from([*WHOLE_REASONS, "1"] if google else WHOLE_REASONS)


@st.composite
def _glued_resend(draw, strategy: str, names: list[str]) -> dict:
    """A call's arguments sent as a start of the object and then the whole object (sglang#23071,
    MiniMax-M2), in one delta or two: read as the whole object, never a value made of both."""
    whole = json.dumps({"q": "g"})
    start = whole[: draw(st.integers(1, len(whole) - 1))]
    if strategy == "ReAct":
        return _calls(strategy, names, "g", 0)
    parts = [start + whole] if draw(st.booleans()) else [start, whole]
    deltas = [{"tool_calls": [{"index": 0, "id": "glued" if n == 0 else None, "type": "function",
                               "function": {"name": names[0] if n == 0 else None, "arguments": part}}]}
              for n, part in enumerate(parts)]
    return {"chunks": deltas, "finish_reason": "tool_calls", "usage": _usage_at(9)}


@st.composite
def _cut_call(draw, strategy: str, names: list[str], google: bool = False) -> dict:
    turn = _calls(strategy, names, CUT_ARG, 0)
    if draw(st.booleans()):  # the call's arguments themselves cut short
        turn = ({"text": turn["text"][: len(turn["text"]) - 3]} if strategy == "ReAct" else
                {"chunks": [{"tool_calls": [{"index": 0, "id": "cut", "type": "function",
                                             "function": {"name": names[0], "arguments": '{"q": "' + CUT_ARG}}]}]})
    stop_at_limit = draw(st.booleans())
    return {**turn, "finish_reason": "stop" if stop_at_limit else draw(_cut_reasons(google)),
            "usage": _usage_at(MAX_TOKENS)}


@st.composite
def _think_calls(draw, strategy: str, names: list[str], split: int | None) -> dict:
    """Reasoning before, between and after calls; ``reasoning_content`` as a field of its own."""
    reasoning = draw(st.sampled_from(["<think>plan", "<think>Action: small\nAction Input: {}", ""]))
    call = _calls(strategy, names[:1], "t", draw(st.sampled_from([0, 1100])))
    if strategy == "ReAct":
        return {"text": reasoning + ("</think>" if reasoning else "") + call["text"], "split": split}
    (first,) = call["tool_calls"][:1]
    delta = {"index": 0, "id": first["id"], "type": "function",
             "function": {"name": first["name"], "arguments": json.dumps(first["arguments"])}}
    chunks = [{"content": reasoning}, {"tool_calls": [delta]}, {"content": "more</think>" if reasoning else ""},
              {"message": {"content": "", "reasoning_content": "hidden plan"}}]
    return {"chunks": chunks, "finish_reason": draw(st.sampled_from(["tool_calls", "stop", None]))}


@st.composite
def _reason_mid_stream(draw, strategy: str, google: bool = False) -> dict:
    """The cut said on a middle chunk; later chunks say none (``"null"``, ``None``) or another
    reason (``length`` then ``stop``: a proxy's own last reason, a usage-only chunk's)."""
    text = _answer(strategy, f"{CUT_MARK} and more")["text"]
    half = len(text) // 2
    tail_reason = draw(st.sampled_from(["null", None, "None", "", "stop", "tool_calls", "end_turn", "STOP"]))
    return {"chunks": [{"content": text[:half], "finish_reason": draw(_cut_reasons(google))},
                       {"content": text[half:]}, {"content": "", "finish_reason": tail_reason}],
            "finish_reason": None, "usage": _usage_at(draw(st.sampled_from([9, MAX_TOKENS])))}


@st.composite
def _secret_call(draw, strategy: str, names: list[str], split: int | None) -> dict:
    """The model writes the secret into a call: its id, the tool's name, an argument's key or value,
    or the reasoning before it."""
    where = draw(st.sampled_from(["id", "name", "key", "value", "think"]))
    name = f"x{SECRET}" if where == "name" else names[0]
    args = {SECRET: 1} if where == "key" else {"q": SECRET}
    think = f"<think>the key is {SECRET}</think>" if where == "think" else ""
    if strategy == "ReAct":
        return {"text": f"{think}Thought: x\nAction: {name}\nAction Input: {json.dumps(args)}", "split": split}
    call = {"id": f"call-{SECRET}" if where == "id" else "c-secret", "name": name, "arguments": args}
    return {"text": think, "tool_calls": [call], "split": split}


NATIVE_FORMS = {  # a call in a family's own markup as text (a server without its tool parser), value ``v``
    "gcml": lambda name, v: (f'<｜GCML｜tool_calls><｜GCML｜invoke name="{name}"><｜GCML｜parameter name="q" string="true">'
                             f"{v}</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>"),
    "solar": lambda name, v: f"<|tool_call:start|>{name}\n<|tool_arg:start|>q<|tool_arg:value|>{v}<|tool_arg:end|>\n<|tool_call:end|>",
    "ifm": lambda name, v: (f"<ifm|tool_calls><ifm|tool_call>{name}<ifm|arg_key>q</ifm|arg_key><ifm|arg_value>{v}"
                            "</ifm|arg_value></ifm|tool_call></ifm|tool_calls>"),
    "iquest": lambda name, v: f"<iquestcoder_tool_call>{name}<arg_key>q</arg_key><arg_value>{v}</arg_value></iquestcoder_tool_call>",
    "m3": lambda name, v: (f']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="{name}">]<]minimax[>[<q>{v}]<]minimax[>[</q>'
                           "]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"),
    "gemma": lambda name, v: f'<|tool_call>call:{name}{{q:<|"|>{v}<|"|>}}<tool_call|>',
    "plamo": lambda name, v: (
        "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"
        f"{name}<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>"
        + json.dumps({"q": v}) + "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|><|plamo:end_tool_requests:plamo|>"),
    "react_step": lambda name, v: f"Thought: x\n💭 Action: {name}\nAction Input: " + json.dumps({"q": v}),
}


@st.composite
def _native_call(draw, strategy: str, names: list[str], offered: list[str], google: bool) -> dict:
    """A call written as text in a family's markup (or as a ReAct step in Function Calling): run
    when whole; cut by the output limit (``CUT_ARG``), never run; with the secret (a tool that has
    it offered), never shown."""
    form = draw(st.sampled_from(sorted(NATIVE_FORMS)))
    value = draw(st.sampled_from(["v", "v", CUT_ARG, SECRET]))
    if value == SECRET and not SECRET_TOOLS & set(offered):
        value = "w"
    text = ("Checking. " if draw(st.booleans()) else "") + NATIVE_FORMS[form](names[0], value)
    split = draw(st.sampled_from([None, 1, 5]))
    if strategy == "ReAct" and form != "react_step":
        text = "Thought: x\n" + text
    if value == CUT_ARG:
        text = text[: draw(st.sampled_from([len(text), len(text) * 2 // 3]))]
        return {"text": text, "finish_reason": draw(_cut_reasons(google)), "usage": _usage_at(MAX_TOKENS), "split": split}
    return {"text": text, "split": split, "usage": _usage_at(draw(st.integers(1, MAX_TOKENS - 1)))}


@st.composite
def hostile_turn(draw, strategy: str, offered: list[str], google: bool = False) -> dict:
    """One model turn of a hostile run (shorthand or raw chunks); ``google``: the model's plugin is
    Google's (finish reasons may be the enum's numbers)."""
    kind = draw(st.sampled_from(["call", "call", "cut_answer", "cut_call", "stop_at_limit", "whole_answer",
                                 "sdk_error", "cumulative", "think_calls", "echo_secret", "secret_call",
                                 "reason_mid_stream", "glued_resend", "native_call"]))
    names = draw(st.lists(st.sampled_from(offered), min_size=1, max_size=3))
    split = draw(st.sampled_from([None, 1, 5]))
    if kind == "call":
        turn = _calls(strategy, names, draw(st.sampled_from(["v", "w"])), draw(st.sampled_from([0, 0, 1100, 6_000_000])))
        return {**turn, "usage": _usage_at(draw(st.integers(1, MAX_TOKENS - 1)))}
    if kind in ("cut_answer", "stop_at_limit"):
        reason = draw(_cut_reasons(google)) if kind == "cut_answer" else "stop"
        return {**_answer(strategy, f"{CUT_MARK} and more"), "finish_reason": reason, "split": split,
                "usage": _usage_at(MAX_TOKENS if kind == "stop_at_limit" else draw(st.sampled_from([7, MAX_TOKENS])))}
    if kind == "whole_answer":
        return {**_answer(strategy, "whole answer"), "finish_reason": draw(_whole_reasons(google)),
                "split": split, "usage": _usage_at(draw(st.integers(1, MAX_TOKENS - 1)))}
    if kind == "sdk_error":
        before = draw(st.sampled_from([[], [{"content": "The answer"}], [{"content": "", "usage": None}]]))
        error = draw(st.sampled_from([*SDK_ERRORS, "huge", "secret"]))
        if error == "huge":  # an error of megabytes, past one stdout line
            error = "upstream said: " + "e" * 6_000_000
        elif error == "secret":  # a provider echoing the request (a tool's secret in it) in its error
            error = SDK_ERRORS[0].replace("upstream 503", f"bad request near {SECRET}")
            if not SECRET_TOOLS & set(offered):
                error = SDK_ERRORS[1]
        return {"chunks": before, "error": error}
    if kind == "cumulative":  # a running total on every chunk: growing, the same total repeated, or up to the limit
        form = draw(st.sampled_from(["growing", "repeated", "to_limit"]))
        text = _answer(strategy, f"{CUT_MARK} cumulative" if form == "to_limit" else "cumulative answer")["text"]
        pieces = [text[i : i + 6] for i in range(0, len(text), 6)]
        last = len(pieces) - 1
        completion = {"growing": lambda n: n + 1, "repeated": lambda n: 40,
                      "to_limit": lambda n: MAX_TOKENS - last + n}[form]
        return {"chunks": [{"content": piece, "usage": make_usage(50, completion(n))} for n, piece in enumerate(pieces)],
                "finish_reason": "stop"}
    parts = {"cut_call": lambda: _cut_call(strategy, names, google), "think_calls": lambda: _think_calls(strategy, names, split),
             "reason_mid_stream": lambda: _reason_mid_stream(strategy, google),
             "glued_resend": lambda: _glued_resend(strategy, names),
             "native_call": lambda: _native_call(strategy, names, offered, google)}
    if kind in parts:
        return draw(parts[kind]())
    if not SECRET_TOOLS & set(offered):  # the plugin knows the secret only from a tool of the node that has it
        return _answer(strategy, "no secret to repeat")
    if kind == "secret_call":
        return draw(_secret_call(strategy, names, split))
    # echo_secret: the model repeats the canary (the user pasted it), split over stream items
    form = draw(st.sampled_from(ENCODED_SECRETS))
    return {**_answer(strategy, f"the key is {form} ok"), "split": draw(st.sampled_from([1, 3, 7]))}


MEMORY_MARK = "MEMORY-MARK-Lyon"
"""What an older, small turn of memory says: kept whatever the turns after it hold."""
PAGE = "page line that goes on about nothing in particular\n" * 4_000  # 200 KB


def _memory(form: str) -> list[dict]:
    """The node's memory: none, small, or an older small turn and then a turn bigger than an 8K
    window alone (a tool result of 200 KB, a 200 KB text the user pasted, both)."""
    if form == "none":
        return []
    older = [{"role": "user", "content": f"I live in {MEMORY_MARK}."}, {"role": "assistant", "content": "Noted."}]
    fetch = [{"role": "user", "content": "Fetch the report."},
             {"role": "assistant", "content": "", "tool_calls": [{"id": "m1", "name": "fetch", "arguments": {"url": "u"}}]},
             {"role": "tool", "content": PAGE, "tool_call_id": "m1", "name": "fetch"},
             {"role": "assistant", "content": "It rambles."}]
    pasted = [{"role": "user", "content": "Summarise: " + PAGE}, {"role": "assistant", "content": "Done."}]
    return {"small": older, "tool_result": [*older, *fetch], "pasted": [*older, *pasted, *fetch]}[form]


@st.composite
def hostile_runs(draw, strategy: str) -> tuple[list[dict], list[str], list[dict], dict]:
    """``(turns, tool names, odd messages of the odd tool, model settings)``: the output limit set
    under each name model plugins use; the model's plugin maybe Google's (finish reasons as enum
    numbers); memory maybe over an 8K window."""
    offered = draw(st.lists(st.sampled_from(sorted(HOSTILE_TOOLS)), min_size=1, max_size=4, unique=True))
    odd = draw(st.lists(st.sampled_from(ODD_MESSAGES), max_size=5))
    google = draw(st.integers(0, 3)) == 0
    plan = [draw(hostile_turn(strategy, offered, google)) for _ in range(draw(st.integers(1, 4)))]
    plan.append(_answer(strategy, "final answer"))
    plan += [_answer(strategy, "extra")] * 3
    plan = [turn if "usage" in turn or "error" in turn else {**turn, "usage": _usage_at(5)} for turn in plan]
    limit = draw(st.sampled_from(["max_tokens", "max_output_tokens", "num_predict", "max_completion_tokens"]))
    params = {"temperature": 0.2, limit: draw(st.sampled_from([MAX_TOKENS, float(MAX_TOKENS)]))}
    memory = draw(st.sampled_from(["none", "none", "small", "tool_result", "pasted"]))
    settings = {"completion_params": params, "history": _memory(memory)}
    if google:
        settings["provider"] = GOOGLE_PROVIDER
    if memory in ("tool_result", "pasted"):
        settings["context_size"] = 8192
    return plan, offered, odd, settings


def reported_tokens(turn: dict) -> int | None:
    """The total tokens one model call of ``turn`` bills (its last report: a single one, or a running
    total), or None when the runner estimates them."""
    if "chunks" in turn:
        reports = [c["usage"] for c in turn["chunks"] if c.get("usage")]
        if reports:
            return int(reports[-1]["total_tokens"])
        if "error" in turn:
            return 0
    usage = turn.get("usage")
    return None if not usage else usage["prompt_tokens"] + usage["completion_tokens"]


def check_usage_total(result, plan: list[dict]) -> None:
    """``execution_metadata`` sent at most once; when every played turn reported its usage, its
    total is theirs, each call counted once (a running total is not added up)."""
    reports = [m for m in result.json_messages if isinstance(m, dict) and "execution_metadata" in m]
    assert len(reports) <= 1, "execution_metadata is sent at most once"
    played = [reported_tokens(turn) for turn in plan[: len(result.llm_requests)]]
    if reports and None not in played:
        event("usage total checked")
        assert reports[0]["execution_metadata"]["total_tokens"] == sum(played), played


def check_hostile(result, plugin, offered: list[str]) -> None:
    """The invariants of a hostile run, on top of ``check``."""
    check(result, plugin)
    shown = [e for e in result.transcript if e["dir"] == "from_plugin"
             and (((e.get("json") or {}).get("data") or {}).get("data") or {}).get("type") != "tool"]
    for form in SHOWN_FORMS:
        for entry in shown:
            assert form not in json.dumps(entry, ensure_ascii=False), form
        for request in result.llm_requests:
            assert form not in json.dumps(request, ensure_ascii=False), form
    for text in (result.text or "", result.error_text or ""):
        assert "Traceback" not in text and 'File "/' not in text and 'File \\"/' not in text, text
    if CUT_MARK in (result.text or ""):  # continued (the model asked for the rest), or marked incomplete
        continued = any(prompts.CONTINUE_CUT_ANSWER in json.dumps(r, ensure_ascii=False) for r in result.llm_requests)
        assert continued or INCOMPLETE in result.text, "a cut reply shown as a whole answer"
    ran = [r.get("tool_parameters", {}).get("q") for r in result.tool_requests]
    assert CUT_ARG not in ran, "a call of a cut reply was run"
    assert set(ran) <= {"v", "w", "t", "g", SECRET, None}, f"a call run with a value the model never wrote: {ran}"
    files = [name for name in ("csv",) if name in offered]
    runs = Counter(r["tool"] for r in result.tool_requests)
    names = [str(f.get("filename") or (f.get("meta") or {}).get("filename") or f) for f in result.files]
    assert sum("kept.csv" in n for n in names) == sum(runs[name] for name in files), names
    if len(result.llm_requests) > 1 and result.tool_requests:
        last = json.dumps(result.llm_requests[-1], ensure_ascii=False)
        for name, marker in KEPT.items():
            if runs[name]:
                assert marker in last, (name, marker)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@pytest.mark.parametrize("blocking", [False, True], ids=["streamed", "blocking"])
@fuzz_settings(HOSTILE_EXAMPLES)
@given(data=st.data())
def test_hostile_runs_keep_the_invariants(run, plugin, strategy, blocking, data):
    plan, offered, odd, settings = data.draw(hostile_runs(strategy), label="run")
    result = play_hostile(run, plugin, strategy, blocking, plan, offered, odd, settings)
    event("answered" if result.ok else "ended in an error")  # shown by --hypothesis-show-statistics
    event(f"tool runs: {min(len(result.tool_requests), 3)}")
    if any(prompts.CONTINUE_CUT_ANSWER in json.dumps(r, ensure_ascii=False) for r in result.llm_requests):
        event("a cut answer was continued")


def play_hostile(run, plugin, strategy, blocking, plan, offered, odd, settings=None):
    """One hostile run and its checks (the generated test and its pinned examples). ``settings``:
    ``completion_params``, and maybe ``history``, ``provider``, ``context_size``."""
    settings = dict(settings or {})
    params = settings.pop("completion_params", None)
    history = settings.pop("history", [])
    tools = []
    for name in offered:
        tool = HOSTILE_TOOLS[name]()
        if name == "odd":
            tool.responses = [*odd, text_message("odd-done")]
        tools.append(tool)
    model = {"features": ["tool-call", "multi-tool-call"] if blocking else list(DEFAULT_FEATURES),
             "completion_params": params or {"temperature": 0.2, "max_tokens": MAX_TOKENS}, **settings}
    if strategy == "ReAct" and blocking:
        model["mode"] = "completion"
    run.plugin = plugin
    result = run(plan, tools=tools, strategy=strategy, timeout=120, maximum_iterations=5, model=model, history=history)
    forget_lines(plugin)
    check_hostile(result, plugin, offered)
    if history and result.llm_requests:  # an older small turn of memory is kept, whatever came after it
        assert MEMORY_MARK in json.dumps(result.llm_requests[0]["prompt_messages"], ensure_ascii=False)
    check_usage_total(result, plan)
    return result


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_the_hostile_checks_catch_a_cut_reply_run_or_shown(run, plugin, strategy):
    """The checks themselves: a whole reply carrying the cut markers is flagged (the call run, the
    answer shown), so a plugin that ran or showed a cut reply would fail them."""
    with pytest.raises(AssertionError, match="cut reply was run"):
        play_hostile(run, plugin, strategy, False, [_calls(strategy, ["small"], CUT_ARG, 0), _answer(strategy, "ok")],
                     ["small"], [])
    with pytest.raises(AssertionError, match="cut reply shown"):
        play_hostile(run, plugin, strategy, False, [_answer(strategy, CUT_MARK)], ["small"], [])


def _cut_mid_stream(strategy: str) -> dict:
    text = _answer(strategy, f"{CUT_MARK} and more")["text"]
    return {"chunks": [{"content": text[:10], "finish_reason": "FinishReason.MAX_TOKENS"}, {"content": text[10:]},
                       {"content": "", "finish_reason": "null"}], "finish_reason": None, "usage": _usage_at(9)}


def _running_total_to_limit(strategy: str) -> dict:
    pieces = [_answer(strategy, CUT_MARK)["text"][i : i + 6] for i in range(0, len(_answer(strategy, CUT_MARK)["text"]), 6)]
    return {"chunks": [{"content": p, "usage": make_usage(50, MAX_TOKENS - len(pieces) + 1 + n)}
                       for n, p in enumerate(pieces)], "finish_reason": "stop"}


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@pytest.mark.parametrize("first", [_cut_mid_stream, _running_total_to_limit], ids=["cut-mid-stream", "running-total-at-limit"])
def test_hostile_cut_said_once_is_still_a_cut(run, plugin, strategy, first):
    """Pinned hostile runs: a cut said on a middle chunk (later chunks say ``"null"``), and a running
    total of usage that reaches the output limit under ``stop``, are read as cut: the answer is
    continued, never shown as it was."""
    plan = [first(strategy), _answer(strategy, "the rest"), _answer(strategy, "extra")]
    result = play_hostile(run, plugin, strategy, False, plan, ["small"], [])
    assert result.ok and CUT_MARK in result.text
    assert any(prompts.CONTINUE_CUT_ANSWER in json.dumps(r, ensure_ascii=False) for r in result.llm_requests)
