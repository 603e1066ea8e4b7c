"""The wave-38 fuzz campaign: what Dify's Agent node sends, drawn whole and played through the
real plugin process.

The earlier campaigns drew the model's replies and the tools' streams; here the node's own
parameters are drawn (docs/fuzzing.md, "Wave 38"):

* tools as ``ToolEntity``-like dicts: label and description missing, null, a bare string or
  texts in another language only; parameters with a missing or null label, description, form or
  type, a type no SDK knows, options null or empty, required without a default, ``llm_description``
  null, an odd ``input_schema``; names with spaces, dots, slashes, CJK, emoji, 300 characters,
  empty, and the same name twice; ``provider_type`` ``plugin``, ``mcp``, unknown or missing;
* the model-selector with ``mode`` missing or null, ``entity`` null or without features,
  completion parameters of odd types (numbers as text, ``stop`` as a string or a list,
  ``max_tokens`` 0, negative, huge or text, an unknown nested key);
* memory in every ``PromptMessage`` shape: content as text, as parts (text, image, document,
  an unknown kind), null; system messages; tool results without an id or with a null one; an
  assistant's calls whose arguments are an object, not JSON, or empty;
* the query empty, 60,000 characters, or with files (an image and a document the runner
  serves, a file dict without an address, of an unknown type, with its size as text);
* the instruction with ``{x}``, ``{{x}}``, Jinja blocks, ``%s``, null;
* ``maximum_iterations`` 0, 1, huge, negative, fractional or as text; the context as text, a
  list of texts, one item, a list of items, a number.

A scripted model calls the one well-formed tool of the node (the anchor, under the name it was
offered) when it is offered, then answers. Every run must: end with the answer or a clear error
(no traceback, no "internal error"); leave no log node in ``start``; keep the plugin alive (no
line over the daemon's limit); send valid model requests (every tool declared with a non-empty
name a provider takes, unique, a non-empty description and an object JSON schema; Function
Calling's calls in memory each answered by a tool message of its id; ``max_tokens``, when sent, a
positive whole number); and send the memory's user messages back in order, none lost.

``AGENT_FUZZ_EXAMPLES=N`` plays N examples per strategy from a random seed (``fuzz_settings``).
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from local_runner import ModelSettings, Scenario, ScriptedBackend, run_scenario
from local_runner.files import FileServer
from local_runner.tools import ToolBox, text_message
from tests.e2e.helpers import TRACEBACK, call_turn, fuzz_settings, revived_plugin, text_of, tool_named
from tests.e2e.test_provider_round_trip import _check_answered, _run

_process, plugin = revived_plugin()

EXAMPLES = 150  # per strategy in CI: some 10 s each on two idle cores
ANSWER = "zq38-final-answer"
ANCHOR_DESCRIPTION = "zq38 anchor tool: looks a word up"
ANCHOR_RESULT = "zq38-anchor-result"
PROVIDER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What OpenAI and Anthropic take as a tool name (``tool_schema.provider_name``)."""
TOOL_HEADERS = ("You can use these tools (name: description; arguments as a JSON schema):",
                "Tools (name: description; arguments as a JSON schema):")

ODD_NAMES = ["search", "get weather", "github.search_repositories", "天気予報", "🔧 fix", "a/b/c", "x" * 300,
             "", " ", "search", "name:with:colons", "Ｆｕｌｌｗｉｄｔｈ", "tab\tname", "dup", "dup", "two\nlines", "crlf\r\nname"]
NAME_CHARS = st.characters(blacklist_categories=("Cs", "Cc"), max_codepoint=0x1FAFF)
NAMES = st.one_of(st.sampled_from(ODD_NAMES), st.text(NAME_CHARS, min_size=1, max_size=24))
PARAM_TYPES = ["string", "number", "boolean", "select", "secret-input", "file", "files", "array", "object",
               "checkbox", "date", "dynamic-select", "any", "app-selector", "model-selector", "tools-selector",
               "weird-new-type", None, 7, ""]
FORMS = ["llm", "form", "schema", None, "", "weird"]
MISSING = object()


def _maybe(data, value: Any, odd: list[Any]) -> Any:
    """``value``, or one of ``odd`` (``MISSING``: the key left out)."""
    return data.draw(st.sampled_from([value, value, *odd]))


def _put(target: dict, key: str, value: Any) -> None:
    if value is MISSING:
        target.pop(key, None)
    else:
        target[key] = value


def draw_parameter(data, n: int) -> dict:
    """One tool parameter with odd but plausible fields."""
    name = data.draw(st.sampled_from([f"p{n}", f"p {n}", f"参数{n}", f"p.{n}", "name", "type", ""]))
    kind = data.draw(st.sampled_from(PARAM_TYPES))
    param = {"name": name, "label": {"en_US": name}, "human_description": {"en_US": f"the {name}"},
             "placeholder": None, "type": kind, "form": "llm", "llm_description": f"the {name} value",
             "required": data.draw(st.booleans()), "default": None, "min": None, "max": None, "precision": None,
             "options": [], "scope": None, "auto_generate": None, "template": None, "multiple": False,
             "input_schema": None}
    _put(param, "label", _maybe(data, param["label"], [None, MISSING, "Plain", {"zh_Hans": "标签"}, {}]))
    _put(param, "human_description", _maybe(data, param["human_description"], [None, MISSING, "plain", {"ja_JP": "説明"}]))
    _put(param, "llm_description", _maybe(data, param["llm_description"], [None, MISSING, "", {"en_US": "as i18n"}]))
    _put(param, "form", _maybe(data, "llm", [*FORMS, MISSING]))
    _put(param, "type", _maybe(data, kind, [MISSING]))
    _put(param, "options", _maybe(data, [{"value": "a", "label": {"en_US": "A"}}, {"value": "b", "label": None}],
                                  [None, [], MISSING, [{"value": "only"}], ["bare"]]))
    _put(param, "default", _maybe(data, None, ["a", 0, "", [], {"k": 1}]))
    _put(param, "input_schema", _maybe(data, None, [{}, {"type": "object"}, {"type": "array", "items": {}},
                                                     {"$ref": "#/properties/nowhere"}, "not a schema"]))
    _put(param, "required", _maybe(data, param["required"], [None, "yes", MISSING]))
    return param


def draw_tool(data, name: str) -> dict:
    """A tool entity as Dify dumps it, then bent in odd but plausible ways."""
    tool = tool_named(name, [text_message(f"result of {name}")]).entity()
    tool["parameters"] = [draw_parameter(data, n) for n in range(data.draw(st.integers(0, 3)))]
    identity = tool["identity"]
    _put(identity, "label", _maybe(data, identity["label"], [None, MISSING, "Bare label", {"zh_Hans": "工具"}, {}]))
    _put(identity, "name", _maybe(data, name, [None, MISSING, 12]))
    _put(tool, "description", _maybe(data, tool["description"], [
        None, MISSING, "a bare description", {"human": None, "llm": None}, {"human": {"en_US": "human only"}, "llm": None},
        {"human": None, "llm": "llm only"}, {"human": {"de_DE": "nur deutsch"}}, {"human": {"en_US": ""}, "llm": ""},
        {"human": {"en_US": "long"}, "llm": "d" * 5000}]))
    _put(tool, "provider_type", _maybe(data, "builtin", ["plugin", "mcp", "api", "workflow", "weird", None, MISSING]))
    _put(tool, "runtime_parameters", _maybe(data, {}, [None, MISSING, {"p0": "user value"}]))
    _put(tool, "parameters", _maybe(data, tool["parameters"], [None, MISSING]))
    _put(tool, "output_schema", _maybe(data, {}, [None, MISSING, {"type": "object"}]))
    return tool


def draw_tools(data) -> tuple[list[dict], str]:
    """Odd tools around one well-formed anchor tool; returns (entities, the anchor's name)."""
    anchor_name = data.draw(NAMES)
    odd_names = data.draw(st.lists(NAMES, max_size=4))
    if data.draw(st.booleans()):
        odd_names.append(anchor_name)  # a second tool of the anchor's name
    tools = [draw_tool(data, name) for name in odd_names]
    anchor = tool_named(anchor_name, [text_message(ANCHOR_RESULT)]).entity()
    anchor["description"] = {"human": {"en_US": ANCHOR_DESCRIPTION}, "llm": ANCHOR_DESCRIPTION}
    tools.insert(data.draw(st.integers(0, len(tools))), anchor)
    tools += data.draw(st.sampled_from([[], [], [], [None], ["junk"], [5, {}], [{"identity": None}]]))
    return tools, anchor_name


def draw_model(data, history: list) -> dict:
    """The model-selector: the usual value, then bent."""
    settings = ModelSettings(context_size=data.draw(st.sampled_from([128_000, 32_000])))
    shaped = data.draw(st.sampled_from(["list", "list", "list", "one", "null", "text"]))
    selector = settings.selector(history if shaped == "list" or len(history) != 1 else history[0])
    if shaped in ("null", "text") and not history:
        selector["history_prompt_messages"] = None if shaped == "null" else "no memory"
    _put(selector, "mode", _maybe(data, "chat", [MISSING, None, ""]))
    if data.draw(st.integers(0, 3)) == 0:
        selector["entity"] = None
    elif data.draw(st.integers(0, 4)) == 0:
        selector["entity"].pop("features")
    elif data.draw(st.booleans()):
        selector["entity"]["features"] += data.draw(st.sampled_from([["vision", "document"], ["vision", "weird-feature"]]))
    params: Any = {"temperature": _maybe(data, 0.2, ["0.7", None, MISSING, 5, "hot"]),
                   "max_tokens": _maybe(data, 512, [0, -1, 10**12, "256", None, MISSING, 3.5, True]),
                   "stop": _maybe(data, MISSING, ["END", ["END", "###"], [], None, ""]),
                   "top_p": _maybe(data, MISSING, ["1", {"nested": {"deep": [1, 2]}}]),
                   "response_format": _maybe(data, MISSING, ["text", "json_object", None])}
    params = {key: value for key, value in params.items() if value is not MISSING}
    selector["completion_params"] = _maybe(data, params, [None, {}, ""])
    return selector


IMAGE_PART = {"type": "image", "format": "png", "base64_data": base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 40).decode(),
              "url": "", "mime_type": "image/png", "filename": "", "detail": "low"}
"""An image of memory as Dify dumps one (``ImagePromptMessageContent``: its ``data`` is a property, never dumped)."""


DOCUMENT_PART = {"type": "document", "format": "pdf", "base64_data": base64.b64encode(b"%PDF-1.4 x").decode(),
                 "url": "", "mime_type": "application/pdf", "filename": "a.pdf"}
OLD_IMAGE_PART = {"type": "image", "data": "data:image/png;base64," + IMAGE_PART["base64_data"], "detail": "low"}
"""An image as Dify dumped one before ``data`` became ``base64_data`` and ``url``."""


def _user_message(shape: str, marker: str) -> dict:
    text = {"type": "text", "data": marker}
    content = {"user": marker, "user_parts": [text], "user_image": [text, IMAGE_PART], "user_old_image": [text, OLD_IMAGE_PART],
               "user_document": [text, DOCUMENT_PART], "user_unknown_part": [text, {"type": "hologram", "data": "?"}],
               "user_null": None}[shape]
    return {"role": "user", "content": content, "name": None}


def _other_message(shape: str, n: int) -> dict:
    return {"assistant": {"role": "assistant", "content": f"mem-a{n}", "name": None, "tool_calls": []},
            "assistant_parts": {"role": "assistant", "content": [{"type": "text", "data": f"mem-a{n}"}], "tool_calls": None},
            "assistant_null": {"role": "assistant", "content": None, "name": None, "tool_calls": []},
            "system": {"role": "system", "content": f"mem-s{n}", "name": None}}[shape]


USER_SHAPES = ["user", "user_parts", "user_image", "user_old_image", "user_document", "user_unknown_part", "user_null"]
OTHER_SHAPES = ["assistant", "assistant_parts", "assistant_null", "system"]


def draw_memory(data) -> list:
    """Memory in every ``PromptMessage`` shape; user texts are ``mem-uN`` markers."""
    memory: list = []
    for n in range(data.draw(st.integers(0, 7))):
        shape = data.draw(st.sampled_from([*USER_SHAPES, *OTHER_SHAPES, "calls", "calls_no_result", "tool_alone"]))
        if shape in USER_SHAPES:
            memory.append(_user_message(shape, f"mem-u{n}"))
        elif shape in OTHER_SHAPES:
            memory.append(_other_message(shape, n))
        elif shape == "tool_alone":
            memory.append({"role": "tool", "content": f"mem-t{n}", "tool_call_id": data.draw(st.sampled_from(["t", None]))})
        else:
            memory += draw_calls(data, n, answered=shape == "calls")
    return memory


def draw_calls(data, n: int, *, answered: bool) -> list[dict]:
    """An assistant's call in memory (arguments of every shape, odd ids), and its result when
    ``answered`` (its id, none, null or another call's)."""
    arguments = data.draw(st.sampled_from(['{"q": "x"}', "{not json", "", {"q": "as object"}, "null", "[1, 2]", None]))
    call_id = data.draw(st.sampled_from([f"call_{n}", f"call_{n}", "", " ", None]))
    messages: list[dict] = [{"role": "assistant", "content": data.draw(st.sampled_from(["", None, f"mem-a{n}"])),
                             "name": None, "tool_calls": [{"id": call_id, "type": "function",
                                                           "function": {"name": "search", "arguments": arguments}}]}]
    if answered:
        result: dict = {"role": "tool", "content": f"mem-t{n}", "name": "search"}
        _put(result, "tool_call_id", data.draw(st.sampled_from([call_id, call_id, call_id, MISSING, None, "other-id"])))
        messages.append(result)
    return messages


def draw_files(data, files: dict) -> Any:
    choice = data.draw(st.sampled_from(["none", "none", "image", "document", "both", "odd", "string", "empty"]))
    return {"none": None, "empty": [], "image": [files["image"]], "document": [files["document"]],
            "both": [files["image"], files["document"]], "string": files["image"]["url"],
            "odd": [{"dify_model_identity": "__dify__file__", "filename": "no-url.png", "type": "image"},
                    {**files["image"], "type": "hologram"}, {**files["document"], "size": "big"}]}[choice]


def draw_request(data, files: dict) -> dict:
    """Every parameter of one node request, and what the run is checked against."""
    memory = draw_memory(data)
    tools, anchor = draw_tools(data)
    return {
        "tools": tools,
        "anchor": anchor,
        "model": draw_model(data, memory),
        "memory": memory,
        "query": data.draw(st.sampled_from(["What is zq?", "", "   ", "長い質問 " * 10, "q" * 60_000,
                                            "{query} {{query}}"])),
        "instruction": data.draw(st.sampled_from([
            "", None, "Be brief.", "Use {x} and {{x}}.", "{% if x %}{{ x }}{% endif %}", "100% {0} %s {}",
            "{{#sys.query#}}", "}{", "\\{escaped\\}"])),
        "maximum_iterations": data.draw(st.sampled_from([0, 1, 2, 5, 10**9, -3, 2.5, "3", " 4 ", None, ""])),
        "context": data.draw(st.sampled_from([
            None, "", "a knowledge text", ["first text", "second text"],
            {"content": "one item", "title": "t", "metadata": {"score": 0.9}},
            [{"content": "item", "title": None, "metadata": None}, {"content": None}], 42, {"weird": True}])),
        "files": draw_files(data, files),
        "allowed_tools": data.draw(st.sampled_from([MISSING, MISSING, None, "", anchor, [anchor], f"{anchor}, nope",
                                                    {anchor: True, "nope": "false"}, ["nope"], json.dumps([anchor])])),
        "step_format": data.draw(st.sampled_from([MISSING, MISSING, "auto", "json", "text", "weird", None])),
        "timeouts": data.draw(st.sampled_from([{}, {}, {"tool_timeout": 0}, {"model_timeout": "30"},
                                               {"run_timeout": 10**9}, {"tool_timeout": -5, "run_timeout": "60"}])),
        "odd_first": data.draw(st.booleans()),
    }


class CallsTheAnchor(ScriptedBackend):
    """A model that calls the anchor tool (under the name it was offered) the first time it is
    offered, then answers ``ANSWER``."""

    def __init__(self, strategy: str, anchor: str, odd_first: bool = False) -> None:
        super().__init__([])
        self.strategy, self.anchor, self.called, self.odd_first = strategy, anchor, False, odd_first
        self.anchor_first = False
        """The anchor was called in the first round (so it must have run)."""

    def offered_other(self, request: dict) -> str | None:
        """The first tool offered that is not the anchor (Function Calling)."""
        if self.strategy == "ReAct":
            return None
        return next((tool["name"] for tool in request.get("tools") or []
                     if tool.get("description") != ANCHOR_DESCRIPTION), None)

    def offered_anchor(self, request: dict) -> str | None:
        if self.strategy != "ReAct":
            return next((tool["name"] for tool in request.get("tools") or []
                         if tool.get("description") == ANCHOR_DESCRIPTION), None)
        line = next((line for line in _system_text(request).split("\n")
                     if line.startswith("- ") and f": {ANCHOR_DESCRIPTION}; arguments:" in line), None)
        return None if line is None else line[2:].split(f": {ANCHOR_DESCRIPTION}; arguments:")[0]

    def invoke_llm(self, request):
        name = self.offered_anchor(request)
        other = self.offered_other(request) if self.odd_first and not self.requests else None
        if other is not None:  # a call of an odd tool, with no arguments: run or refused, the run goes on
            self._turns.append(call_turn(self.strategy, other, {}, call_id="call_odd"))
        elif name is not None and not self.called and not _last_round(request):
            self.called, self.anchor_first = True, not self.requests
            self._turns.append(call_turn(self.strategy, name, {"value": "zq"}, call_id="call_anchor"))
        else:
            self._turns.append({"text": f"Thought: done.\nFinal Answer: {ANSWER}" if self.strategy == "ReAct" else ANSWER})
        return super().invoke_llm(request)


def _last_round(request: dict) -> bool:
    """The request asks for the answer (the iteration or time limit was reached): a model that
    calls a tool then ends the run without an answer, as it should."""
    text = json.dumps(request["prompt_messages"], ensure_ascii=False)
    return "Do not call any more tools." in text  # ITERATION_LIMIT_NOTE's and TIME_LIMIT_NOTE's words


def _system_text(request: dict) -> str:
    return "\n".join(text_of(m["content"]) for m in request["prompt_messages"] if m["role"] == "system")


# --- checks ----------------------------------------------------------------------------------


def check_declarations(strategy: str, request: dict) -> None:
    """Every tool the request declares has a non-empty name (one a provider takes, in Function
    Calling), unique, a non-empty description and an object JSON schema."""
    if strategy != "ReAct":
        names = []
        for tool in request.get("tools") or []:
            assert isinstance(tool.get("name"), str) and PROVIDER_NAME.fullmatch(tool["name"]), tool.get("name")
            assert isinstance(tool.get("description"), str) and tool["description"].strip(), tool
            schema = tool.get("parameters")
            assert isinstance(schema, dict) and schema.get("type") == "object", schema
            assert isinstance(schema.get("properties"), dict), schema
            assert set(schema.get("required") or []) <= set(schema["properties"]), schema
            names.append(tool["name"])
        assert len(names) == len(set(names)), names
        return
    system = _system_text(request)
    header = next((h for h in TOOL_HEADERS if h in system), None)
    if header is None:
        return  # no tools offered (or a completion prompt without a system message)
    block = system.split(header, 1)[1].split("\nTo use a tool", 1)[0].split("\n\nWhen", 1)[0]
    entries: list[str] = []
    for line in block.strip("\n").split("\n"):  # a description may run over lines (paragraphs)
        if line.startswith("- ") or not entries:
            entries.append(line)
        else:
            entries[-1] += "\n" + line
    for line in entries:
        assert line.startswith("- ") and "; arguments: " in line, line[:200]
        head, schema_text = line[2:].rsplit("; arguments: ", 1)
        schema = json.loads(schema_text)
        assert isinstance(schema, dict) and schema.get("type") == "object", schema_text[:200]
        assert head.strip() and not head.startswith(": ") and not head.rstrip().endswith(":"), line[:200]


def check_memory_pairs(request: dict) -> None:
    """Function Calling: every call of an assistant message is answered by one tool message of
    its id right after it, and every tool message answers such a call (providers refuse others)."""
    messages = request["prompt_messages"]
    for n, message in enumerate(messages):
        calls = message.get("tool_calls") or [] if message["role"] == "assistant" else []
        ids = [call.get("id") for call in calls]
        assert all(isinstance(i, str) and i for i in ids), calls
        following = []
        for later in messages[n + 1:]:
            if later["role"] != "tool":
                break
            following.append(later.get("tool_call_id"))
        if ids:
            assert following[:len(ids)] == ids or sorted(following) == sorted(ids), (ids, following)
        for call in calls:
            arguments = call["function"]["arguments"]
            assert isinstance(arguments, str)
            assert isinstance(json.loads(arguments), dict), arguments  # model plugins parse them
    answered = {call.get("id") for m in messages if m["role"] == "assistant" for call in m.get("tool_calls") or []}
    for message in messages:
        if message["role"] == "tool":
            assert message.get("tool_call_id") in answered, message


def check_max_tokens(request: dict, node_params: Any) -> None:
    """A ``max_tokens`` the plugin set in place of the node's (to fit the window) is a positive
    whole number below it; the node's own value goes as the user set it (the model plugin checks
    it against its rules and says what is wrong, as it does for Dify's LLM node)."""
    sent = (request.get("completion_params") or {}).get("max_tokens")
    given = node_params.get("max_tokens") if isinstance(node_params, dict) else None
    if sent != given or type(sent) is not type(given):
        assert isinstance(sent, int) and not isinstance(sent, bool) and sent > 0, (sent, given)
        assert not isinstance(given, int | float) or isinstance(given, bool) or sent < given, (sent, given)


def check_file_parts(request: dict) -> None:
    """Every file part sent carries its bytes or its address (providers refuse an image of
    nothing, ``data:image/png;base64,``)."""
    for message in request["prompt_messages"]:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part.get("type") != "text":
                assert part.get("base64_data") or part.get("url"), part


def memory_user_texts(memory: list) -> list[str]:
    """The memory's user messages that an answer follows (the next message but system ones is an
    assistant's text): those go back. A user message with no answer after it is a turn whose
    answer failed, left out by design (``messages._taking_turns``: Bedrock and strict chat
    templates refuse two user messages in a row)."""
    turns = [message for message in memory if message.get("role") != "system"]
    kept = []
    for message, after in zip(turns, [*turns[1:], None], strict=False):
        text = text_of(message.get("content")) if message.get("role") == "user" else ""
        answered = after is not None and after.get("role") == "assistant" and text_of(after.get("content")).strip()
        if text.startswith("mem-u") and answered:
            kept.append(text)
    return kept


def check_memory_order(memory: list, request: dict) -> None:
    """The memory's user messages go back in order, none lost (the memory is far inside the window)."""
    texts = [text_of(m["content"]) for m in request["prompt_messages"]]
    joined = "\n".join(texts)
    at = 0
    for marker in memory_user_texts(memory):
        found = joined.find(marker, at)
        assert found >= 0, (marker, memory_user_texts(memory), joined[:2000])
        at = found + len(marker)


def error_is_clear(text: str | None) -> None:
    assert text and text.strip(), "the run failed without a word"
    assert TRACEBACK not in text and "internal error" not in text.lower(), text[:500]
    assert len(text) < 4000, text[:500]


@pytest.fixture(scope="module")
def node_files():
    """An image and a PDF the runner serves (fetched by the plugin as Dify's own addresses are)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder, FileServer() as server:
        image = Path(folder) / "pixel.png"
        image.write_bytes(base64.b64decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="))
        document = Path(folder) / "note.pdf"
        document.write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
        yield {"image": server.add(image), "document": server.add(document)}


def play(plugin, strategy: str, drawn: dict):
    toolbox = ToolBox([tool_named(str(t["identity"].get("name")), [text_message(ANCHOR_RESULT)])
                       for t in drawn["tools"] if isinstance(t, dict) and isinstance(t.get("identity"), dict)])
    backend = CallsTheAnchor(strategy, drawn["anchor"], drawn["odd_first"])
    params = {key: drawn[key] for key in ("tools", "model", "query", "instruction", "maximum_iterations",
                                          "context", "files", "allowed_tools", "step_format") if drawn[key] is not MISSING}
    params.update(drawn["timeouts"])
    scenario = Scenario(query="", strategy=strategy, params=params)
    try:
        result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60)
    finally:
        backend.release()
        toolbox.release()
    return result, backend, toolbox


def check_run(plugin, strategy: str, drawn: dict, result, backend, toolbox) -> None:
    assert plugin.alive, "the plugin died (a line over the daemon's limit?)"
    assert result.done, "the run never ended"
    assert result.unfinished_logs() == [], [n.label for n in result.unfinished_logs()]
    for message in result.messages:
        assert TRACEBACK not in json.dumps(message, ensure_ascii=False), str(message)[:300]
    if not result.ok:
        error_is_clear(result.error_text)
        return
    assert ANSWER in result.text, result.text[-500:]
    assert backend.requests, "no model request"
    for request in backend.requests:
        check_declarations(strategy, request)
        check_max_tokens(request, drawn["model"].get("completion_params"))
        assert request.get("mode") in ("chat", "completion"), request.get("mode")
        if strategy != "ReAct":
            check_memory_pairs(request)
    if len(drawn["query"]) < 1000:  # a 60,000-character query leaves memory no room: trimmed by design
        check_memory_order(drawn["memory"], backend.requests[0])
    for request in backend.requests:
        check_file_parts(request)
    if backend.anchor_first:  # the anchor ran and its result went back
        assert any(call.request.get("tool") == drawn["anchor"] for call in toolbox.calls), [c.request for c in toolbox.calls]
        later = json.dumps(backend.requests[-1]["prompt_messages"], ensure_ascii=False)
        assert ANCHOR_RESULT in later or "result of" in later, later[-1500:]


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_node_requests_end_cleanly_with_valid_model_requests(plugin, node_files, strategy, data):
    drawn = draw_request(data, node_files)
    result, backend, toolbox = play(plugin, strategy, drawn)
    check_run(plugin, strategy, drawn, result, backend, toolbox)


# --- what the campaign found, pinned as plain runs --------------------------------------------


def _plain_run(plugin, strategy: str, tools: list[dict], model: dict, turns: list[dict]):
    toolbox = ToolBox([tool_named(str(t["identity"]["name"]), [text_message(ANCHOR_RESULT)]) for t in tools])
    backend = ScriptedBackend(turns)
    scenario = Scenario(query="What is zq?", strategy=strategy, params={"tools": tools, "model": model})
    return run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=60), backend, toolbox


def _react_call(name: str) -> dict:
    return call_turn("ReAct", name, {"value": "zq"})


@pytest.mark.parametrize(("node_name", "offered"), [("", "tool"), (" ", "tool"), (" ó", "ó"), ("search ", "search"),
                                                    ("two\nlines", "two lines")])
def test_react_offers_a_blank_or_spaced_tool_name_as_a_name_the_model_can_call(plugin, node_name, offered):
    tool = tool_named(node_name, [text_message(ANCHOR_RESULT)]).entity()
    turns = [_react_call(offered), {"text": f"Thought: done.\nFinal Answer: {ANSWER}"}]
    result, backend, toolbox = _plain_run(plugin, "ReAct", [tool], ModelSettings().selector([]), turns)
    assert result.ok and ANSWER in result.text, result.error_text
    check_declarations("ReAct", backend.requests[0])
    assert f"\n- {offered}: " in _system_text(backend.requests[0])
    assert [call.request["tool"] for call in toolbox.calls] == [node_name]
    assert ANCHOR_RESULT in json.dumps(backend.requests[1]["prompt_messages"], ensure_ascii=False)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
@pytest.mark.parametrize("mode", [MISSING, None, ""], ids=["missing", "null", "empty"])
def test_a_model_selector_without_a_mode_runs(plugin, strategy, mode):
    model = ModelSettings().selector([{"role": "user", "content": "mem-u0"}, {"role": "assistant", "content": "mem-a1"}])
    _put(model, "mode", mode)
    turns = [{"text": f"Thought: done.\nFinal Answer: {ANSWER}" if strategy == "ReAct" else ANSWER}]
    result, backend, _ = _plain_run(plugin, strategy, [], model, turns)
    assert result.ok and ANSWER in result.text, result.error_text
    assert backend.requests[0]["mode"] == "chat"


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_memory_of_odd_shapes_goes_back_whole_and_readable(plugin, strategy):
    memory = [{"role": "user", "content": [{"type": "text", "data": "mem-u0"}, OLD_IMAGE_PART], "name": None},
              {"role": "assistant", "content": [{"type": "text", "data": "mem-a0"}], "tool_calls": None},
              {"role": "user", "content": "mem-u1"},
              {"role": "assistant", "content": "", "tool_calls": [
                  {"id": "", "type": "function", "function": {"name": "search", "arguments": "{}"}},
                  {"id": "c2", "type": "function", "function": {"name": "search", "arguments": "{not json"}}]},
              {"role": "tool", "content": "blank", "tool_call_id": "", "name": "search"},
              {"role": "tool", "content": "mem-t2", "tool_call_id": "c2", "name": "search"},
              {"role": "assistant", "content": "mem-a1"}]
    model = ModelSettings(features=["tool-call", "vision"]).selector(memory)
    turns = [{"text": f"Thought: done.\nFinal Answer: {ANSWER}" if strategy == "ReAct" else ANSWER}]
    result, backend, _ = _plain_run(plugin, strategy, [], model, turns)
    assert result.ok and ANSWER in result.text, result.error_text
    request = backend.requests[0]
    check_memory_order(memory, request)
    check_file_parts(request)
    if strategy != "ReAct":
        check_memory_pairs(request)
        calls = [call for m in request["prompt_messages"] if m["role"] == "assistant" for call in m.get("tool_calls") or []]
        assert [(call["id"], call["function"]["arguments"]) for call in calls] == [("c2", "{}")]


@pytest.mark.parametrize("arguments", ["{not json", "", "[1, 2]"])
def test_memory_calls_with_unreadable_arguments_reach_claude_as_objects(plugin, arguments):
    """Anthropic's model plugin reads each replayed call's arguments with ``json.loads`` and
    takes only an object (the contract refuses the request otherwise, as the plugin fails it)."""
    history = [{"role": "user", "content": "What was 6 * 7?"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "toolu_01", "type": "function", "function": {"name": "calculator", "arguments": arguments}}]},
               {"role": "tool", "content": "42", "tool_call_id": "toolu_01", "name": "calculator"},
               {"role": "assistant", "content": "It is 42."}]
    backend, toolbox, result = _run(plugin, "anthropic", "function_calling", "stream", history=history)
    _check_answered(backend, toolbox, result)
