"""A call written as an element named after one of the node's tools, its parameters as child
elements (``<read_file>\\n<path>a.py</path>\\n</read_file>``): the tool format Cline's and
Roo-Code's system prompts teach, which coder models fine-tuned on their traces write unasked.

Both strategies' turn readers get each reply whole and in pieces of 1, 2 and 7 characters: the
call runs and never reaches the user, or the reply is the answer, element and all. The
strategies get the node's tools as the plugin gives them (declarations, typed parameters).
"""

from dataclasses import dataclass

import pytest
from dify_plugin.entities.model.message import PromptMessageTool
from dify_plugin.interfaces.agent import ToolEntity

from agent_core.call_markup import CallMarkup
from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import ActionFound, parse_react
from agent_core.react.turn import read_react_turn
from agent_core.text_calls import element_arguments, element_opening
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain


def tool(name: str, **params: str) -> ToolEntity:
    """A node tool whose parameters are ``params`` (name -> Dify type)."""
    return ToolEntity.model_validate(
        {
            "identity": {"author": "t", "name": name, "label": {"en_US": name}, "provider": "t"},
            "parameters": [
                {
                    "name": p, "label": {"en_US": p}, "human_description": {"en_US": p}, "type": kind,
                    "form": "llm", "llm_description": p, "required": False,
                }
                for p, kind in params.items()
            ],
            "description": {"human": {"en_US": name}, "llm": f"The {name} tool"},
        }
    )


READ_FILE = tool("read_file", path="string")
WRITE_FILE = tool("write_to_file", path="string", content="string")
LIST_FILES = tool("list_files", path="string", recursive="boolean", depth="number", only="array")
TOOLS = (READ_FILE, WRITE_FILE, LIST_FILES)


def read(strategy: str, text: str, size: int | None) -> tuple[str, object]:
    """(what the user saw, the turn) for ``text`` streamed whole or in ``size`` pieces."""
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    chunks = iter([*(ModelChunk(text=piece) for piece in pieces), ModelChunk(finish_reason="stop")])
    registry = ToolRegistry(list(TOOLS), provider_names=strategy == "fc")
    if strategy == "react":
        return drain(read_react_turn(chunks, registry, 1))
    return drain(read_function_calling_turn(chunks, registry.prompt_tools()))


@dataclass(frozen=True)
class Case:
    text: str
    calls: list | None = None  # (name, arguments) run, in order; else the reply is the answer
    shown: str | None = None  # what the user sees of a reply that calls (Function Calling)
    only: tuple[str, ...] = ("react", "fc")


CALLS = {
    "alone": Case(
        "<read_file>\n<path>package.json</path>\n</read_file>",
        calls=[("read_file", {"path": "package.json"})],
        shown="",
    ),
    "after-a-sentence": Case(
        "I'll read the file first.\n\n<read_file>\n<path>package.json</path>\n</read_file>",
        calls=[("read_file", {"path": "package.json"})],
        shown="I'll read the file first.",
    ),
    "after-a-thought-label": Case(
        "Thought: I need the manifest.\n<read_file>\n<path>package.json</path>\n</read_file>",
        calls=[("read_file", {"path": "package.json"})],
        only=("react",),
    ),
    "after-an-action-label": Case(
        "Thought: I need the manifest.\nAction:\n<read_file>\n<path>package.json</path>\n</read_file>",
        calls=[("read_file", {"path": "package.json"})],
        only=("react",),
    ),
    "after-cline-thinking": Case(  # Cline's prompt asks for <thinking> before a tool use
        "<thinking>The user wants the manifest.</thinking>\n\n<read_file>\n<path>package.json</path>\n</read_file>",
        calls=[("read_file", {"path": "package.json"})],
        shown="",
    ),
    "on-one-line": Case(
        "<read_file><path>src/main.js</path></read_file>",
        calls=[("read_file", {"path": "src/main.js"})],
        shown="",
    ),
    "two-calls": Case(
        "Reading both.\n<read_file>\n<path>a.py</path>\n</read_file>\n<read_file>\n<path>b.py</path>\n</read_file>",
        calls=[("read_file", {"path": "a.py"}), ("read_file", {"path": "b.py"})],
        shown="Reading both.",
    ),
    # a string parameter is its text as written: markup and JSON-looking text stay text
    "string-values-as-written": Case(
        "<write_to_file>\n<path>index.html</path>\n<content>\n<html>\n  <body>{\"a\": 1}</body>\n</html>\n"
        "</content>\n</write_to_file>",
        calls=[("write_to_file", {"path": "index.html", "content": '<html>\n  <body>{"a": 1}</body>\n</html>'})],
        shown="",
    ),
    # other parameters: JSON when their text reads as JSON
    "typed-values": Case(
        "<list_files>\n<path>src</path>\n<recursive>true</recursive>\n<depth>2</depth>\n"
        '<only>["*.py"]</only>\n</list_files>',
        calls=[("list_files", {"path": "src", "recursive": True, "depth": 2, "only": ["*.py"]})],
        shown="",
    ),
    # parameters that are not the tool's own are kept as given, nested elements as an object
    # (the argument check then tells the model what the tool takes)
    "parameters-not-the-tools-own": Case(
        "<read_file>\n<args>\n<file>\n<path>a.md</path>\n</file>\n</args>\n</read_file>",
        calls=[("read_file", {"args": {"file": {"path": "a.md"}}})],
        shown="",
    ),
    "no-parameters": Case("<list_files>\n</list_files>", calls=[("list_files", {})], shown=""),
}

TEXTS = {
    "a tag that is no tool's name": "Here is the layout:\n<config>\n<path>a</path>\n</config>",
    "a tool's name in another case": "<Read_File>\n<path>a</path>\n</Read_File>",
    "a fenced example": "Call it like this:\n```xml\n<read_file>\n<path>a.py</path>\n</read_file>\n```\nThat is all.",
    "a bare fenced example": "Call it like this:\n```\n<read_file>\n<path>a.py</path>\n</read_file>\n```",
    "inline code": "`<read_file><path>a.py</path></read_file>` reads a file.",
    "mentioned in prose": "To read a file, write <read_file><path>a.py</path></read_file> on its own.",
    "never closed": "Let me check.\n<read_file>\n<path>package.json</path>\n",
    "text beside the parameters": "<read_file>\nplease read <path>a.py</path>\n</read_file>",
    "a value never closed": "<read_file>\n<path>a.py\n</read_file>",
}


def _call_params():
    """``(name, strategy)`` for each CALLS case in each strategy it is for (``only``)."""
    for name, case in CALLS.items():
        for strategy in ("react", "fc"):
            if strategy in case.only:
                yield pytest.param(name, strategy, id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 2, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_call_params()))
def test_an_element_named_after_a_tool_is_its_call(name, strategy, size):
    case = CALLS[name]
    streamed, turn = read(strategy, case.text, size)
    assert isinstance(turn.decision, ToolCalls), turn.decision
    assert [(call.name, call.arguments) for call in turn.decision.calls] == case.calls
    assert "<read_file" not in streamed and "</" not in streamed and "<path>" not in streamed
    if strategy == "fc":
        assert streamed.strip() == case.shown


@pytest.mark.parametrize("size", [None, 1, 2, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(TEXTS))
def test_an_element_that_is_no_call_is_the_answer(name, strategy, size):
    text = TEXTS[name]
    streamed, turn = read(strategy, text, size)
    assert turn.decision == FinalAnswer(text.strip())
    assert streamed.strip() == text.strip()


@pytest.mark.parametrize("size", [None, 1, 7])
def test_react_an_element_after_the_final_answer_label_is_the_answers_text(size):
    answer = "Write this to read it:\n<read_file>\n<path>a.py</path>\n</read_file>"
    streamed, turn = read("react", f"Thought: The user asks how.\nFinal Answer: {answer}", size)
    assert turn.decision == FinalAnswer(answer)
    assert streamed == answer


def test_react_an_element_inside_an_action_that_holds_no_parameters_is_a_problem_not_an_answer():
    _, turn = read("react", "Thought: Reading.\nAction:\n<read_file>package.json</read_file>", None)
    assert not isinstance(turn.decision, (ToolCalls, FinalAnswer)), turn.decision


def test_react_a_labelled_action_after_an_element_in_a_thought_wins():
    # as with bare JSON under a Thought: the element was an example in the thought
    text = (
        "Thought: I could write <read_file> as\n<read_file>\n<path>a.py</path>\n</read_file>\n"
        'but I will use the label.\nAction: read_file\nAction Input: {"path": "b.py"}'
    )
    _, turn = read("react", text, 3)
    assert [(call.name, call.arguments) for call in turn.decision.calls] == [("read_file", {"path": "b.py"})]


def test_the_react_parser_reads_elements_only_of_the_tools_it_is_given():
    text = "<read_file>\n<path>a.py</path>\n</read_file>"
    assert parse_react(text).actions == ()
    assert parse_react(text, tool_names=frozenset({"list_files"})).actions == ()
    actions = parse_react(text, tool_names=frozenset({"read_file"})).actions
    assert [(action.name, action.input) for action in actions] == [("read_file", {"path": "a.py"})]
    assert isinstance(actions[0], ActionFound) and actions[0].raw.startswith("<read_file>")


def test_call_markup_reads_elements_only_when_given_the_tools():
    text = "Reading.\n<read_file>\n<path>a.py</path>\n</read_file>"
    plain = CallMarkup()
    assert plain.feed(text) + plain.finish() == text
    given = CallMarkup(tools={"read_file": None})
    out = given.feed(text) + given.finish()
    assert out == 'Reading.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'


def test_an_element_inside_the_models_own_tool_call_block_is_one_call():
    text = "<tool_call>\n<read_file>\n<path>a.py</path>\n</read_file>\n</tool_call>"
    _, turn = read("fc", text, 4)
    assert [(call.name, call.arguments) for call in turn.decision.calls] == [("read_file", {"path": "a.py"})]


def test_function_calling_runs_an_element_the_model_left_in_its_reasoning():
    # the content is empty and the call is in reasoning_content, as Qwen3 in LM Studio does with
    # its own markup (lmstudio-ai/lmstudio-bug-tracker#1592)
    chunks = iter([
        ModelChunk(reasoning="I should read it.\n<read_file>\n<path>a.py</path>\n</read_file>"),
        ModelChunk(finish_reason="stop"),
    ])
    streamed, turn = drain(read_function_calling_turn(chunks, ToolRegistry([READ_FILE]).prompt_tools()))
    assert streamed == ""
    assert [(call.name, call.arguments) for call in turn.decision.calls] == [("read_file", {"path": "a.py"})]


def test_function_calling_streams_the_text_before_the_element_before_it_closes():
    pieces = ["I'll read it.\n", "<read_", "file>\n<path>a.py", "</path>\n</read_file>"]
    chunks = iter([*(ModelChunk(text=piece) for piece in pieces), ModelChunk(finish_reason="stop")])
    reader = read_function_calling_turn(chunks, [PromptMessageTool(name="read_file", description="", parameters={})])
    assert next(reader) == "I'll read it.\n"  # before the element's tag even completed
    rest, turn = drain(reader)
    assert rest == "" and [call.name for call in turn.decision.calls] == ["read_file"]


# ---- the readers ----------------------------------------------------------------------------------


def test_element_opening_names_only_the_tools_given():
    names = {"read_file", "list_files"}
    assert element_opening("<read_file>\n", 0, names) == "read_file"
    assert element_opening("x <list_files>", 2, names) == "list_files"
    assert element_opening("<read_f", 0, names) == ""  # may still become one
    assert element_opening("<read_fx", 0, names) is None
    assert element_opening("<read_filex>", 0, names) is None
    assert element_opening("<path>", 0, names) is None
    assert element_opening("<read_file attr='1'>", 0, names) is None


def test_element_arguments_reads_parameters_as_declared():
    declaration = ToolRegistry([LIST_FILES]).prompt_tools()[0]
    body = "\n<path> src </path>\n<depth>2</depth>\n<recursive>yes please</recursive>\n<extra>5</extra>\n"
    assert element_arguments(body, declaration) == {"path": "src", "depth": 2, "recursive": "yes please", "extra": "5"}
    assert element_arguments("<path>a</path><path>b</path>", declaration) == {"path": ["a", "b"]}
    assert element_arguments("", declaration) == {}
    assert element_arguments("<path>a</path> and more", declaration) is None
    assert element_arguments("<path>a", declaration) is None


def test_a_string_value_keeps_its_indentation_and_inner_lines():
    declaration = ToolRegistry([WRITE_FILE]).prompt_tools()[0]
    body = "<content>\n    indented()\n\n    more()\n</content>"
    assert element_arguments(body, declaration) == {"content": "    indented()\n\n    more()"}


THINK = tool("think", thought="string")  # the "think" tool many agents give their model
ANSWER = tool("answer", text="string")
RESPONSE = tool("response", text="string")
FRAMED = {
    "qwen3-empty-think": ("<think>\n\n</think>\n\nThe answer is 42.", "The answer is 42."),
    "think-holding-elements": ("<think>\n<thought>x</thought>\n</think>\nThe answer is 42.", "The answer is 42."),
    "answer-frame-after-reasoning": ("<think>hmm</think>\n<answer>\nThe answer is 42.\n</answer>", "The answer is 42."),
    "empty-response-element": ("<response>\n</response>", "<response>\n</response>"),
    "empty-answer-element-after-text": ("The answer is 42.\n<answer></answer>", "The answer is 42.\n<answer></answer>"),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(FRAMED))
def test_a_tool_named_like_a_reasoning_or_answer_frame_is_not_called_by_its_tag(name, strategy, size):
    """A node tool named ``think``, ``answer`` or ``response``: the tags reasoning models write
    around their reasoning and answer stay those frames (Qwen3's empty think block before every
    answer ran the think tool and lost the answer), never a call to the tool."""
    text, answer = FRAMED[name]
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    chunks = iter([*(ModelChunk(text=piece) for piece in pieces), ModelChunk(finish_reason="stop")])
    registry = ToolRegistry([THINK, ANSWER, RESPONSE, READ_FILE], provider_names=strategy == "fc")
    if strategy == "react":
        _, turn = drain(read_react_turn(chunks, registry, 1))
    else:
        _, turn = drain(read_function_calling_turn(chunks, registry.prompt_tools()))
    assert isinstance(turn.decision, FinalAnswer), turn.decision
    assert turn.decision.text == answer
