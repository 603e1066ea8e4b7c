"""Generated runs of both strategies through the real plugin process, checked against the
invariants a user relies on, whatever the model and the tools do.

Each example draws a realistic run: ``maximum_iterations`` 1-4, a random set of tools (text,
JSON, file and image answers, failures, an empty answer, a slow-but-in-time tool, rarely one
that outlives ``tool_timeout``) and ``maximum_iterations + 1`` model turns (the loop adds one
final-answer round at the limit) mixing answers, valid / unknown / malformed / incomplete tool
calls, empty or garbled replies and model errors mid-stream. Every run must:

* end, with non-empty answer text or a clear error message (never silently);
* leave no log node in ``start`` state, finish each node exactly once, with a status;
* show every tool call the plugin ran in a ``CALL`` node under its round, and feed each
  round's results (or errors) back to the model in the next request, in call order;
* send ``execution_metadata`` exactly once, its tokens the sum of every usage the model sent;
* play at most ``maximum_iterations`` rounds, plus one ``FINAL ANSWER`` round after a limit note.

Model turns also end with a whole reply's finish reason in the spellings plugins send (``null``,
``None``, none, ``STOP``, ``FinishReason.STOP``) and fail with errors shaped as a model plugin's
error object or a bare traceback (the user never sees the traceback).

CI runs a fixed, derandomized set of examples (``EXAMPLES``); ``AGENT_FUZZ_EXAMPLES=N`` runs ``N``
fresh examples per strategy from a random seed (the long mode, see ``test_adversarial_fuzz`` and
docs/fuzzing.md). Minimal cases of bugs this found are plain tests at the end of the file.
"""

import base64
import json
import re
from collections import Counter

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from agent_core import prompts
from local_runner.backends import make_usage
from local_runner.scenario import DEFAULT_FEATURES
from local_runner.tools import ScriptedTool, ToolParam, json_message, text_message
from tests.e2e.helpers import answer_turn, assert_clean_end, fuzz_settings

TOOL_TIMEOUT = 1  # seconds: the smallest the plugin accepts
EXAMPLES = 190  # per strategy


# --- the tools a run may offer ------------------------------------------------------------------


def _blob(data: bytes, name: str) -> dict:
    return {"type": "blob", "message": {"blob": base64.b64encode(data).decode()},
            "meta": {"filename": name, "mime_type": "text/csv"}}


def _blob_chunks(data: bytes, name: str, size: int = 4) -> list[dict]:
    """A file sent in ``blob_chunk`` messages, the last one marked ``end``."""
    parts = [data[i : i + size] for i in range(0, len(data), size)]
    return [{"type": "blob_chunk", "meta": {"filename": name, "mime_type": "text/plain"},
             "message": {"id": "file-1", "sequence": n, "total_length": len(data),
                         "blob": base64.b64encode(part).decode(), "end": n == len(parts) - 1}}
            for n, part in enumerate(parts)]


def _image_link(url: str) -> dict:
    return {"type": "image_link", "message": {"text": url}, "meta": None}


def _tool(name: str, **kwargs) -> ScriptedTool:
    kwargs.setdefault("parameters", [ToolParam("q", description="What to look for")])
    return ScriptedTool(name=name, description=f"The {name} tool", **kwargs)


TOOLS = {
    "lookup": lambda: _tool("lookup", responses=[text_message("lookup-result: 42 rows")]),
    "stats": lambda: _tool("stats", responses=[json_message({"marker": "stats-json", "count": 3})]),
    "export": lambda: _tool("export", responses=[text_message("export-done"), _blob(b"a,b\n1,2\n", "report.csv")]),
    "picture": lambda: _tool("picture", responses=[_image_link("https://example.com/img/cat.png")]),
    "chunked": lambda: _tool("chunked", responses=[*_blob_chunks(b"line 1\nline 2\n", "notes.txt")]),
    "flaky": lambda: _tool("flaky", responses=[text_message("flaky-partial")], error="flaky-broke-7"),
    "failing": lambda: _tool("failing", error="HTTP 500: upstream-down"),
    "silent": lambda: _tool("silent"),
    "sluggish": lambda: _tool("sluggish", responses=[text_message("sluggish-ok")], latency=0.15),
    "count": lambda: _tool("count", parameters=[ToolParam("n", type="number", description="How many")],
                           responses=[text_message("count-ok")]),
    "slow": lambda: _tool("slow", responses=[text_message("slow-late")], latency=TOOL_TIMEOUT + 0.4),
}
COMMON_TOOLS = [name for name in TOOLS if name != "slow"]
SHOWN = {  # what the model and the log must get of each tool's run
    "lookup": ["lookup-result: 42 rows"],
    "stats": ["stats-json"],
    "export": ["export-done", "report.csv"],
    "picture": ["https://example.com/img/cat.png"],
    "chunked": ["notes.txt"],
    "flaky": ["flaky-partial", "flaky-broke-7"],
    "failing": ["HTTP 500: upstream-down"],
    "silent": ["no output"],
    "sluggish": ["sluggish-ok"],
    "count": ["count-ok"],
    "slow": [f"timed out after {TOOL_TIMEOUT} seconds"],
}
FAILS = {"flaky", "failing", "slow"}
UNKNOWN_TOOLS = ["search_web", "lookup_v2", "Lookup", ""]


def valid_arguments(tool: str, value: str) -> dict:
    return {"n": len(value)} if tool == "count" else {"q": value}


# --- model turns ----------------------------------------------------------------------------------

WORDS = ["rover", "battery", "warranty", "x", "Paris", "firmware 2.1", "日本", "a\nb"]
ANSWERS = ["The rover has 42 rows.", "I could not find it.", "Done: report exported.",
           "Résumé: tout va bien.", "答案是 42。", "OK"]
THOUGHTS = ["I should check.", "Let me look this up.", "", "Hmm."]


def weighted(**weights: int) -> st.SearchStrategy[str]:
    """One of the keyword names, drawn in proportion to its weight (shrinks to the first)."""
    names = [name for name, weight in weights.items() for _ in range(weight)]
    return st.integers(0, len(names) - 1).map(names.__getitem__)


@st.composite
def usages(draw) -> dict:
    """The ``usage`` part of a scripted turn: estimated (absent), explicit, or none at all."""
    kind = draw(st.sampled_from(["explicit", "estimated", "explicit", "none"]))
    if kind == "estimated":
        return {}
    if kind == "none":
        return {"usage": None}
    usage = {"prompt_tokens": draw(st.integers(0, 900)), "completion_tokens": draw(st.integers(0, 300))}
    latency = draw(st.sampled_from([None, 0.0, 1.25]))  # 0: a plugin that fills only the tokens
    return {"usage": usage if latency is None else {**usage, "latency": latency}}


@st.composite
def planned_call(draw, offered: list[str]) -> tuple[str, object]:
    """One call as ``(name, arguments)``: arguments a dict, or a JSON string (maybe malformed)."""
    kind = draw(weighted(valid=5, unknown=1, malformed=1, missing=1, wrong_type=1, schema_echo=1))
    name = draw(st.sampled_from(offered)) if offered else "lookup"
    value = draw(st.sampled_from(WORDS[:3]))  # few values: identical calls repeat across rounds
    if kind == "unknown":
        return draw(st.sampled_from(UNKNOWN_TOOLS)), {"q": value}
    if kind == "malformed":
        return name, draw(st.sampled_from(['{"q": "rov', '{"q": rover battery}', '{"n": 37 * 91}', "not json",
                                           '{"q": "a"}{"q": "b"}', '["q"]']))
    if kind == "missing":
        return name, {}
    if kind == "schema_echo":  # the tool's schema where values belong (never run)
        return name, draw(st.sampled_from(SCHEMA_ECHOES))(name)
    if kind == "wrong_type":
        return name, {"n": "many"} if name == "count" else {"q": value, "extra": [1, 2]}
    return name, valid_arguments(name, value)


_Q_SCHEMA = {"type": "string", "description": "What to look for"}
SCHEMA_ECHOES = [  # a tool's schema written in place of the call's arguments, in the forms models send
    lambda name: {"type": "object", "properties": {"q": _Q_SCHEMA, "n": {"type": "number"}}, "required": ["q"]},
    lambda name: {"properties": {"q": _Q_SCHEMA, "n": {"type": "number", "minimum": 1}}},
    lambda name: {"name": name, "description": f"The {name} tool",
                  "parameters": {"type": "object", "properties": {"q": _Q_SCHEMA, "n": {"type": "number"}}}},
    lambda name: {"q": {**_Q_SCHEMA, "maxLength": 80}, "n": {"type": "number", "examples": [3]}},
]


def _arguments_text(arguments: object) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _value(v: object) -> str:
    return _arguments_text(v) if not isinstance(v, str) else v


def _wave33_markup(name: str, arguments: object, values: dict, family: str) -> str | None:
    """The families the later wave-33 readers added (vLLM's parser tests); None for another."""
    args = _arguments_text(arguments)
    value = _value
    if family == "gcml":  # GigaChat 3.5
        params = "".join(f'<｜GCML｜parameter name="{k}" string="{str(isinstance(v, str)).lower()}">{value(v)}'
                         "</｜GCML｜parameter>" for k, v in values.items())
        return f'<｜GCML｜tool_calls><｜GCML｜invoke name="{name}">{params}</｜GCML｜invoke></｜GCML｜tool_calls>'
    if family == "solar":  # Solar Open 2
        params = "".join(f"<|tool_arg:start|>{k}<|tool_arg:value|>{value(v)}<|tool_arg:end|>\n" for k, v in values.items())
        return f"<|tool_call:start|>{name}\n{params}<|tool_call:end|>"
    if family == "minicpm":  # MiniCPM5, opening a line
        params = "".join(f'<param name="{k}">{value(v)}</param>' for k, v in values.items())
        return f'\n<function name="{name}">{params}</function>'
    if family == "ifm":  # K2 Horizon
        pairs = "".join(f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{value(v)}</ifm|arg_value>" for k, v in values.items())
        return f"<ifm|tool_calls><ifm|tool_call>{name}{pairs}</ifm|tool_call></ifm|tool_calls>"
    if family == "plamo":  # PLaMo 3
        return ("<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>"
                f"{name}<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json"
                f"<|plamo:msg|>{args}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
                "<|plamo:end_tool_requests:plamo|>")
    if family == "iquest":  # iQuest Coder V2
        pairs = "".join(f"<arg_key>{k}</arg_key><arg_value>{value(v)}</arg_value>" for k, v in values.items())
        return f"<iquestcoder_tool_call>{name}{pairs}</iquestcoder_tool_call>"
    if family == "gemma_two":  # Gemma 4, two calls in one block
        body = ",".join(f'{k}:<|"|>{value(v)}<|"|>' for k, v in values.items())
        return f"<|tool_call>call:{name}{{{body}}}call:{name}{{{body}}}<tool_call|>"
    if family == "qwen3_unclosed":  # Qwen3-Coder, the name's ">" left out
        params = "".join(f"<parameter={k}>\n{value(v)}\n</parameter>\n" for k, v in values.items())
        return f"<function={name}\n{params}</function>"
    if family == "m3":  # MiniMax-M3, its token before every tag, an element repeated
        ns = "]<]minimax[>["
        params = "".join(f"{ns}<{k}>{value(v)}{ns}</{k}>" * (2 if n == 0 else 1) for n, (k, v) in enumerate(values.items()))
        return f'{ns}<tool_call>\n{ns}<invoke name="{name}">{params}{ns}</invoke>\n{ns}</tool_call>'
    if family == "deepseek_outputs":  # DeepSeek's call, then its tool-output tokens (dropped)
        return (native_markup(name, arguments, "deepseek")
                + "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>made up<｜tool▁output▁end｜><｜tool▁outputs▁end｜>")
    return None


WAVE34_MARKUP = {  # (name, arguments' JSON text) -> the call as the family writes it
    # Qwen3.5/3.6: the name fused into a key with no value
    "qwen_fused": lambda name, args: f'<tool_call>\n{{"function={name}","arguments":{args}}}\n</tool_call>',
    # Apertus 1.5: reasoning in its own tokens, the turn's tokens around the call
    "apertus": lambda name, args: (f"<|inner_prefix|>Need {name}.<|inner_suffix|><|assistant_start|>"
                                   f'<tool_call>{{"name": "{name}", "arguments": {args}}}</tool_call><|assistant_end|>'),
}


def native_markup(name: str, arguments: object, family: str) -> str:
    """One call in a model family's own markup, as a server without its tool parser leaves it."""
    args = _arguments_text(arguments)
    if family in WAVE34_MARKUP:
        return WAVE34_MARKUP[family](name, args)
    if family == "deepseek":
        return f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    if family == "kimi":
        return f"<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
    if family == "mistral":
        return f"[TOOL_CALLS]{name}[ARGS]{args}"
    if family == "harmony":
        return f"<|channel|>analysis<|message|>Need a tool.<|end|><|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{args}<|call|>"
    values = arguments if isinstance(arguments, dict) else {"q": args}
    if family == "glm":
        pairs = "".join(f"<arg_key>{k}</arg_key><arg_value>{_arguments_text(v) if not isinstance(v, str) else v}</arg_value>" for k, v in values.items())
        return f"<tool_call>{name}{pairs}</tool_call>"
    if family == "minimax_angleless":  # MiniMax M2.x with every tag's "<" and its wrapper left out
        params = "".join(f'parameter name="{k}">{_arguments_text(v) if not isinstance(v, str) else v}parameter>\n'
                         for k, v in values.items())
        return f'invoke name="{name}">\n{params}invoke>'
    if (markup := _wave33_markup(name, arguments, values, family)) is not None:
        return markup
    params = "".join(f'<parameter name="{k}">{_value(v)}</parameter>' for k, v in values.items())
    return f'<minimax:tool_call><invoke name="{name}">{params}</invoke></minimax:tool_call>'


NATIVE_FAMILIES = ["deepseek", "kimi", "mistral", "harmony", "glm", "minimax", "minimax_angleless", "gcml", "solar",
                   "minicpm", "ifm", "plamo", "iquest", "gemma_two", "qwen3_unclosed", "m3", "deepseek_outputs", "qwen_fused", "apertus"]
HELD_MARKUP = [  # a call's markup cut by a failing stream: never shown to the user
    '<｜GCML｜tool_calls><｜GCML｜invoke name="lookup"><｜GCML｜parameter name="q" string="true">rov',
    "<|tool_call:start|>lookup\n<|tool_arg:start|>q<|tool_arg:value|>rov",
    "<ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>q",
    "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>",
    "<iquestcoder_tool_call>lookup<arg_key>q</arg_key>",
    ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="lookup">',
    "<|tool_call>call:lookup{q:<|\"|>rov",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.lookup:0<|tool_call_argument_begin|>{\"q\"",
]
EMOJI_LABELS = {"Thought": ["💭 ", "🤔 ", "- 💭 **"], "Action": ["🔧 ", "👉 ", "1️⃣ "], "Final Answer": ["✅ ", "🎯 "]}


@st.composite
def fc_turn(draw, offered: list[str], index: int) -> dict:
    """One function-calling model turn."""
    kind = draw(weighted(calls=6, answer=2, error=1, empty=1, call_as_text=1, markup=1, think=1, native=2,
                         react_step=1, stream34=1))
    split = draw(st.sampled_from([None, 1, 3, 7]))
    turn: dict = {"split": split} if split else {}
    if kind == "answer":
        turn["text"] = draw(st.sampled_from(ANSWERS))
        turn.update(draw(whole_finish_reasons()))
    elif kind == "think":
        turn["text"] = "<think>" + draw(st.sampled_from(THOUGHTS)) + "</think>" + draw(st.sampled_from(["", *ANSWERS]))
    elif kind == "empty":
        turn["text"] = draw(st.sampled_from(["", "  \n"]))
        if draw(st.booleans()):
            turn["finish_reason"] = "tool_calls"
    elif kind == "call_as_text":
        name, arguments = draw(planned_call(offered))
        turn["text"] = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    elif kind == "native":
        name, arguments = draw(planned_call(offered))
        prose = draw(st.sampled_from(["", "Let me check.\n\n"]))
        turn["text"] = prose + native_markup(name, arguments, draw(st.sampled_from(NATIVE_FAMILIES)))
    elif kind == "react_step":  # a ReAct step written as text (run when nothing in it is guessed)
        name, arguments = draw(planned_call(offered))
        head = draw(st.sampled_from(["", "Thought: I need to look it up.\n", "💭 Thought: check\n", "I will check.\n"]))
        step = _react_action(name, arguments, draw(st.sampled_from(["lines", "blob"])))
        if draw(st.booleans()):
            step = draw(st.sampled_from(EMOJI_LABELS["Action"])) + step
        tail = draw(st.sampled_from(["", "\nObservation: 42 rows", "\nFinal Answer: 42", "\nThat is what I would do."]))
        turn["text"] = head + step + tail
    elif kind == "markup":
        turn["text"] = draw(st.sampled_from(['<tool_call>{"name": "lookup", "arguments": {"q": ', "```json\n{oops}\n```",
                                             "Action: lookup", '[{"bad": true}]']))
    elif kind == "calls":
        calls = draw(st.lists(planned_call(offered), min_size=1, max_size=3))
        id_style = draw(st.sampled_from(["unique", "unique", "missing", "duplicate"]))
        turn["tool_calls"] = [
            {"id": {"unique": f"r{index}c{n}", "missing": "", "duplicate": "same"}[id_style], "name": name,
             "arguments": _arguments_text(arguments)}
            for n, (name, arguments) in enumerate(calls, start=1)
        ]
        if draw(st.booleans()):
            turn["text"] = draw(st.sampled_from(["Let me check. ", "Checking", "One moment.\n"]))
    else:  # the model fails mid-stream (after text, a call, or a usage report), or a wave-34 stream
        failing = kind == "error"
        turn = draw(error_turn(fc=True, offered=offered) if failing else stream34_turn(offered, index))
        return turn if failing else {**turn, **draw(usages())}
    return {**turn, **draw(usages())}


@st.composite
def stream34_turn(draw, offered: list[str], index: int) -> dict:
    """One call streamed in a wave-34 shape: Poolside's second id on every chunk after the head,
    the SDK base's id of its own on every named chunk (MiniMax on NIM), the arguments whole under
    a later id, a Harmony token glued to the name, ``</tool_call>`` after the arguments."""
    name, arguments = draw(planned_call(offered))
    text = _arguments_text(arguments)
    shape = draw(st.sampled_from(["second_id", "id_per_chunk", "named_every_chunk", "whole_later", "harmony_name",
                                  "closing_tag"]))
    size = draw(st.sampled_from([1, 3, 8, 1000]))  # 1: a blank piece (" ") of its own
    pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    indexed = {"index": 0} if draw(st.booleans()) else {}
    head_name = name + draw(st.sampled_from(["<|channel|>commentary", "<|constrain|>json", "<|call|>"])) \
        if shape == "harmony_name" else name
    chunks = [{"tool_calls": [{**indexed, "id": f"r{index}h", "type": "function",
                               "function": {"name": head_name, "arguments": ""}}]}]
    if shape == "whole_later":
        pieces = [text]
    for n, piece in enumerate(pieces):
        call_id = {"id_per_chunk": f"r{index}p{n}", "named_every_chunk": f"r{index}p{n}"}.get(shape, f"r{index}s")
        if shape in ("harmony_name", "closing_tag"):
            call_id = ""
        function = {"arguments": piece, **({"name": name} if shape == "named_every_chunk" else {})}
        chunks.append({"tool_calls": [{**indexed, "id": call_id, "type": "function" if call_id else None,
                                       "function": function}]})
    if shape == "closing_tag":
        chunks.append({"tool_calls": [{**indexed, "function": {"arguments": "</tool_call>"}}]})
    chunks[-1]["finish_reason"] = "tool_calls"
    return {"chunks": chunks}


_SERVER_TRACEBACK = 'Traceback (most recent call last):\n  File "/srv/app.py", line 3, in chat\n    run()\nKeyError: model'
SDK_ERRORS = [  # a model plugin's error as Dify passes it on: an SDK error object, a traceback
    'PluginInvokeError: {"args": {"traceback": "Traceback (most recent call last):\\n  File \\"/app/llm.py\\", '
    'line 9, in _invoke\\nValueError: bad"}, "error_type": "InvokeServerUnavailableError", "message": "upstream 503"}',
    'Traceback (most recent call last):\n  File "/app/llm.py", line 9, in _invoke\n    raise X\nTimeoutError: read timed out',
    # a server's traceback quoted in its JSON error body, inside the plugin's error object, inside a traceback
    'Traceback (most recent call last):\n  File "/app/llm.py", line 9, in _invoke\n    raise X\n'
    'dify_plugin.errors.PluginInvokeError: PluginInvokeError: ' + json.dumps(
        {"args": {}, "error_type": "InvokeServerUnavailableError",
         "message": "[openai_api_compatible] Error: " + json.dumps({"error": {"message": _SERVER_TRACEBACK, "code": 500}})}),
    _SERVER_TRACEBACK.replace("\n", "\r\n"),  # lines ending in \r\n
]


@st.composite
def whole_finish_reasons(draw) -> dict:
    """The finish reason of a whole reply, in the spellings model plugins send (``None``: none)."""
    reason = draw(st.sampled_from(["default", "null", "None", "STOP", "FinishReason.STOP", "end_turn", None]))
    return {} if reason == "default" else {"finish_reason": reason}


@st.composite
def error_turn(draw, *, fc: bool, offered: list[str]) -> dict:
    """A model call that fails after part of its output."""
    chunks: list[dict] = []
    before = draw(st.sampled_from(["text", "usage", "call", "nothing", "markup"]))
    if before == "markup":  # prose, then a call's markup the failure cuts
        chunks.append({"content": draw(st.sampled_from(["", "Checking. ", "Yes"]))})
        chunks.append({"content": draw(st.sampled_from(HELD_MARKUP))})
    elif before == "text":
        chunks.append({"content": draw(st.sampled_from(["The answer is", "Thought: hmm\nFinal Answer: 4"]))})
    elif before == "call" and fc:
        name = draw(st.sampled_from(offered)) if offered else "lookup"
        chunks.append({"tool_calls": [{"index": 0, "id": "cut", "type": "function",
                                       "function": {"name": name, "arguments": '{"q'}}]})
    elif before == "usage":  # some providers report usage, then fail (content filter, proxy cut)
        usage = make_usage(draw(st.integers(1, 500)), draw(st.integers(0, 50)))
        chunks.append({"content": draw(st.sampled_from(["", "Partial"])), "usage": usage})
    return {"chunks": chunks, "error": draw(st.sampled_from(["connection reset by peer", "upstream 502", *SDK_ERRORS]))}


def _react_action(name: str, arguments: object, style: str) -> str:
    if style == "lines":
        return f"Action: {name}\nAction Input: {_arguments_text(arguments)}"
    body = json.dumps(arguments, ensure_ascii=False) if not isinstance(arguments, str) else arguments
    return f'Action:\n```json\n{{"action": "{name}", "action_input": {body}}}\n```'


@st.composite
def react_turn(draw, offered: list[str], index: int) -> dict:
    """One ReAct model turn."""
    kind = draw(weighted(action=12, final=4, error=2, two_actions=2, garbage=2, invented=2, think_only=1, empty=1, native=2,
                         finish=1))
    thought = draw(st.sampled_from(THOUGHTS))
    emoji = draw(st.integers(0, 3)) == 0  # labels with emoji, as a prompt showing them teaches
    thought_mark = draw(st.sampled_from(EMOJI_LABELS["Thought"])) if emoji else ""
    head = f"{thought_mark}Thought:{'**' if thought_mark.endswith('**') else ''} {thought}\n" if thought or draw(st.booleans()) else ""
    split = draw(st.sampled_from([None, 1, 4, 9]))
    turn: dict = {"split": split} if split else {}
    if kind == "final":
        mark = draw(st.sampled_from(EMOJI_LABELS["Final Answer"])) if emoji else ""
        turn["text"] = head + mark + "Final Answer: " + draw(st.sampled_from(ANSWERS))
        if draw(st.integers(0, 3)) == 0:  # a JSON list: the answer's object, then calls (never run)
            steps = [{"action": "Final Answer", "action_input": draw(st.sampled_from(ANSWERS))},
                     *({"action": name, "action_input": {"q": AFTER_ANSWER}} for name in offered[:2] or ["lookup"])]
            turn["text"] = head + "Action:\n```json\n" + json.dumps(steps, ensure_ascii=False) + "\n```"
        turn.update(draw(whole_finish_reasons()))
    elif kind in ("action", "two_actions", "invented"):
        style = draw(st.sampled_from(["blob", "lines"]))
        actions = [draw(planned_call(offered)) for _ in range(2 if kind == "two_actions" else 1)]
        mark = draw(st.sampled_from(EMOJI_LABELS["Action"])) if emoji else ""
        text = head + "\n".join(mark + _react_action(name, arguments, style) for name, arguments in actions)
        if kind == "invented":
            text += "\nObservation: 42 rows\nThought: I know.\nFinal Answer: 42"
        turn["text"] = text
    elif kind == "garbage":
        turn["text"] = draw(st.sampled_from(["I think the answer is blue.", "Action:", "Final Answer:",
                                             "🔧 I'd take action: lookup the rover.", "✅ Done. Action items: none",
                                             "Action: \nAction Input: {}", "Observation: made up",
                                             'Action:\n```json\n{"action_input": {"q": "x"}}\n```',
                                             "Thought: hmm\nAction: lookup\nAction Input: {\"q\": \"rov"]))
    elif kind == "native":
        name, arguments = draw(planned_call(offered))
        turn["text"] = head + native_markup(name, arguments, draw(st.sampled_from(NATIVE_FAMILIES)))
    elif kind == "think_only":
        turn["text"] = "<think>" + (thought or "...") + "</think>"
    elif kind == "finish":  # the ReAct paper's answer action alone (hello-agents#311)
        turn["text"] = "Finish[" + draw(st.sampled_from(ANSWERS)) + "]"
    elif kind == "empty":
        turn["text"] = ""
    else:
        return draw(error_turn(fc=False, offered=offered))
    return {**turn, **draw(usages())}


@st.composite
def scenarios(draw, strategy: str) -> dict:
    """A whole run: tools, limit and enough model turns for it to end."""
    offered = draw(st.lists(st.sampled_from(COMMON_TOOLS), min_size=draw(st.sampled_from([1, 2, 0])),
                            max_size=4, unique=True))
    if draw(st.integers(0, 19)) == 0:  # rare: each slow call costs a whole tool timeout
        offered.append("slow")
    maximum_iterations = draw(st.integers(1, 4))
    make = fc_turn if strategy == "function_calling" else react_turn
    turns = [draw(make(offered, index)) for index in range(1, maximum_iterations + 2)]
    if strategy == "ReAct":  # chat or completion prompt
        model = {"mode": draw(st.sampled_from(["chat", "chat", "completion"]))}
    else:  # streamed or blocking tool calls
        model = {"features": draw(st.sampled_from([DEFAULT_FEATURES, ["tool-call", "multi-tool-call"]]))}
    return {"tools": offered, "maximum_iterations": maximum_iterations, "turns": turns, "model": model}


# --- the invariants -------------------------------------------------------------------------------

CLEAR_ERRORS = [
    prompts.MODEL_FAILED.split("{")[0],
    prompts.EMPTY_REPLIES.split("{")[0],
    prompts.FILTERED_REPLIES.split("{")[0],
    prompts.BROKEN_REPLIES.split("{")[0],
    prompts.UNREADABLE_REPLIES.split("{")[0],
]
ROUND_LABEL = re.compile(r"ROUND (\d+)$")


def _call_is_run(node) -> bool:
    """Whether a CALL node's tool was invoked (refusals are not: unknown tool, bad arguments, repeat)."""
    return node.error is None or node.error.startswith(prompts.TOOL_FAILED.split("{")[0])


def fed_back(strategy: str, request: dict, count: int) -> list[tuple[str | None, str]]:
    """The last ``count`` tool results the model reads in ``request``: ``(call id, text)`` in order
    (ids only for function calling)."""
    messages = request["prompt_messages"]
    if strategy == "function_calling":
        tail = messages[-count:]
        assert [m["role"] for m in tail] == ["tool"] * count, [m["role"] for m in messages]
        return [(m["tool_call_id"], m["content"]) for m in tail]
    if len(messages) == 1:  # a completion prompt: one text ending in the scratchpad
        pad = messages[0]["content"]
    else:
        assert [m["role"] for m in messages[-2:]] == ["assistant", "user"], "ReAct: scratchpad then a nudge"
        pad = messages[-2]["content"]
    segments = pad.split("Observation: ")
    assert len(segments) > count
    return [(None, segment) for segment in segments[-count:]]


def check_ending(result) -> None:
    """The run ended, with answer text or a clear error message."""
    assert result.failure is None, result.failure
    assert result.ended or result.error is not None
    if result.ok:
        assert result.text.strip(), "a run that ends without error gives the user text"
        return
    message = (result.error or {}).get("message") or ""
    assert message.strip(), "an error says what went wrong"
    assert "Traceback" not in message and 'File "/' not in message and 'File \\"/' not in message, message
    assert any(start in message for start in CLEAR_ERRORS), message
    assert "no turn left" not in message, "the loop made more model calls than rounds allow"


def check_logs(result) -> None:
    """Every log node started first and finished exactly once, with a status (and a reason for an error)."""
    history: dict[str, list[str]] = {}
    for entry in result.log_history:
        history.setdefault(entry["id"], []).append(entry["status"])
    for log_id, statuses in history.items():
        label = result.logs[log_id].label
        assert statuses[0] == "start", (label, statuses)
        assert len(statuses) == 2 and statuses[1] in ("success", "error"), (label, statuses)
    for node in result.logs.values():
        assert node.parent_id is None or node.parent_id in result.logs, node.label
        assert node.status != "error" or node.error, f"{node.label}: an error status says why"


def check_rounds(result, maximum: int) -> list:
    """At most ``maximum`` rounds, then one final-answer round after a limit note; one model call
    per round. Returns the round nodes in order."""
    roots = result.root_logs()
    rounds = [n for n in roots if ROUND_LABEL.match(n.label) or n.label == "FINAL ANSWER"]
    numbers = [int(ROUND_LABEL.match(n.label).group(1)) for n in rounds if n.label != "FINAL ANSWER"]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) <= maximum
    labels = [n.label for n in roots]
    if "FINAL ANSWER" in labels:
        at = labels.index("FINAL ANSWER")
        assert at == len(labels) - 1 and labels[at - 1] in ("ITERATION LIMIT", "REPEATED CALLS"), labels
    assert len(result.llm_requests) == len(rounds) <= maximum + 1
    for round_node in rounds:
        children = result.children(round_node)
        assert sum(c.label.endswith(" Thought") for c in children) == 1
        if round_node.label == "FINAL ANSWER":
            assert not any(c.label.startswith("CALL ") for c in children), "no tool runs in the final-answer round"
    return rounds


def check_tool_runs(result) -> None:
    """Every tool invocation has its CALL node, which shows what the tool did; files reach the user."""
    calls = [n for n in result.logs.values() if n.label.startswith("CALL ")]
    for request in result.tool_requests:  # a schema written in place of values is refused, never run
        parameters = request.get("tool_parameters") or {}
        assert not {"properties", "parameters"} & set(parameters), parameters
        assert not any(isinstance(v, dict) and "type" in v for v in parameters.values()), parameters
    ran = Counter(n.label.removeprefix("CALL ") for n in calls if _call_is_run(n))
    assert Counter(r["tool"] for r in result.tool_requests) == ran
    assert len(result.files) == ran["export"] + ran["picture"] + ran["chunked"], "each file reaches the user once"
    for node in filter(_call_is_run, calls):
        name = node.label.removeprefix("CALL ")
        assert (node.status == "error") == (name in FAILS), (node.label, node.status, node.error)
        logged = node.data["output"]["tool_response"] + (node.error or "")
        assert all(marker in logged for marker in SHOWN[name]), (node.label, logged)


def check_feedback(result, rounds: list, strategy: str) -> None:
    """Each round's results (or errors) go back to the model in the next request, in call order."""
    for number, round_node in enumerate(rounds):
        call_nodes = [c for c in result.children(round_node) if c.label.startswith("CALL ")]
        if round_node.status != "success" or not call_nodes:
            continue
        responses = round_node.data["output"]["tool_responses"]
        by_id = {c.data["output"]["tool_call_id"]: c for c in call_nodes}
        assert sorted(by_id) == sorted(r["tool_call_id"] for r in responses), "one CALL node per result"
        assert len(by_id) == len(call_nodes), "call ids are unique within a round"
        if number + 1 == len(result.llm_requests):
            continue  # the run ended with this round
        fed = fed_back(strategy, result.llm_requests[number + 1], len(responses))
        for (call_id, seen), response in zip(fed, responses, strict=True):
            node = by_id[response["tool_call_id"]]
            assert call_id in (None, response["tool_call_id"])
            expected = node.error or node.data["output"]["tool_response"]
            assert expected and expected in seen, (node.label, expected, seen)
            if _call_is_run(node):
                assert all(m in seen for m in SHOWN[node.label.removeprefix("CALL ")]), (node.label, seen)


def check_usage(result) -> None:
    """``execution_metadata`` sent once, its tokens the exact sum of every usage the model reported."""
    reports = [m for m in result.json_messages if isinstance(m, dict) and "execution_metadata" in m]
    assert len(reports) == 1, "execution_metadata is sent exactly once"
    metadata = reports[0]["execution_metadata"]
    for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
        assert metadata[key] == sum(int(u[key]) for u in result.llm_usages), key
    if result.ok:  # a call that reported no latency counts the time the run measured for it
        assert float(metadata["latency"]) > 0, metadata


def check_answer_text(result, scenario: dict, strategy: str) -> None:
    """The answer shows no call the plugin read as one (MiniMax's angle-less invoke of an offered
    tool) and no ReAct ``Finish[...]`` wrapper around it."""
    if not result.ok:
        return
    for name in scenario.get("tools", ()):
        assert f'invoke name="{name}">' not in result.text, result.text
    if strategy == "ReAct":
        assert not result.text.lstrip().startswith("Finish["), result.text


def check_no_held_markup_shown(result, scenario: dict) -> None:
    """A call's markup a failing stream cut is never shown to the user as text."""
    for turn in scenario["turns"]:
        for chunk in turn.get("chunks", ()):
            if chunk.get("content") in HELD_MARKUP:
                assert chunk["content"][:12] not in result.text, result.text


def _leaves(value: object) -> list[str]:
    """The texts of a value a text parameter was given: itself, or when it is the JSON text of a
    list or object (MiniMax-M3's element written twice gives the list of both), its texts."""
    try:
        decoded = json.loads(value) if isinstance(value, str) and value[:1] in "[{" else value
    except ValueError:
        decoded = value
    if isinstance(decoded, dict):
        return [leaf for v in decoded.values() for leaf in _leaves(v)]
    if isinstance(decoded, list):
        return [leaf for v in decoded for leaf in _leaves(v)]
    return [decoded] if isinstance(decoded, str) else []


AFTER_ANSWER = "after-the-answer"
"""The value only the calls a ReAct JSON list puts after its "Final Answer" object carry."""


def check_values_written(result, scenario: dict) -> None:
    """No tool runs with a text value the model never wrote (a guessed call), nor with one only the
    calls after a final answer carry."""
    assert not any(AFTER_ANSWER in json.dumps(r, ensure_ascii=False) for r in result.tool_requests), "ran after an answer"
    written = json.dumps(scenario["turns"], ensure_ascii=False) + "".join(
        t.get("text", "") for t in scenario["turns"]) + "".join(  # arguments streamed in pieces, joined
        "".join(str(call["function"].get("arguments", "")) for chunk in t.get("chunks", ()) if "content" not in chunk
                for call in chunk.get("tool_calls") or () if isinstance(call.get("function"), dict))
        for t in scenario["turns"])
    for request in result.tool_requests:
        for value in (request.get("tool_parameters") or {}).values():
            for leaf in _leaves(value):
                assert leaf in written, (leaf, request)


def check_invariants(result, scenario: dict, strategy: str) -> None:
    check_ending(result)
    check_answer_text(result, scenario, strategy)
    if "turns" in scenario:
        check_no_held_markup_shown(result, scenario)
        check_values_written(result, scenario)
    check_logs(result)
    rounds = check_rounds(result, scenario["maximum_iterations"])
    check_tool_runs(result)
    check_feedback(result, rounds, strategy)
    check_usage(result)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_generated_runs_keep_the_invariants(run, strategy, data):
    scenario = data.draw(scenarios(strategy), label="scenario")
    tools = [TOOLS[name]() for name in scenario["tools"]]
    result = run(scenario["turns"], tools=tools, strategy=strategy, timeout=30, tool_timeout=TOOL_TIMEOUT,
                 maximum_iterations=scenario["maximum_iterations"], model=dict(scenario["model"]))
    check_invariants(result, scenario, strategy)
    event("answered" if result.ok else "ended in an error")  # shown by --hypothesis-show-statistics
    event(f"last log: {[n.label for n in result.root_logs()][-1]}")
    event(f"tool runs: {min(len(result.tool_requests), 3)}")
    if any(n.error and "timed out" in n.error for n in result.logs.values()):
        event("a tool timed out")


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_the_checks_accept_a_plain_tool_round(run, strategy):
    """The checks themselves, on runs known to be right."""
    call = {"tool_calls": [{"id": "c1", "name": "flaky", "arguments": {"q": "x"}}]}
    if strategy == "ReAct":
        call = {"text": _react_action("flaky", {"q": "x"}, "blob")}
    result = run([call, answer_turn(strategy, "42")], tools=[TOOLS["flaky"]()], strategy=strategy)
    assert_clean_end(result)
    check_invariants(result, {"maximum_iterations": 5}, strategy)


# --- minimal cases of what the fuzzing found ------------------------------------------------------


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_usage_reported_before_the_model_fails_is_counted(run, strategy):
    """The provider billed the tokens it reported, even if the stream broke afterwards."""
    turns = [{"chunks": [{"content": "", "usage": make_usage(100, 7)}], "error": "connection reset by peer"}]
    result = run(turns, strategy=strategy)
    assert not result.ok and "connection reset by peer" in result.error_text
    assert result.unfinished_logs() == []
    assert result.execution_metadata["total_tokens"] == 107
    (thought,) = [n for n in result.logs.values() if n.label.endswith(" Thought")]
    assert thought.status == "error" and thought.tokens == 107
