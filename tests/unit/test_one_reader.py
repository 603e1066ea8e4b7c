"""Both strategies read a call written as text the same way: every form and every repair case
goes through Function Calling's turn reader (content fallback) and ReAct's turn reader, and
both must run the same calls, or both refuse."""

import pytest
from dify_plugin.interfaces.agent import ToolEntity

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from tests.unit.helpers import drain

SEARCH = ToolEntity.model_validate(
    {
        "identity": {"author": "t", "name": "search", "label": {"en_US": "search"}, "provider": "t"},
        "parameters": [
            {
                "name": "q", "label": {"en_US": "q"}, "human_description": {"en_US": "q"}, "type": "string",
                "form": "llm", "llm_description": "what to look for", "required": True,
            },
            {
                "name": "limit", "label": {"en_US": "limit"}, "human_description": {"en_US": "limit"},
                "type": "number", "form": "llm", "llm_description": "how many", "required": False,
            },
        ],
        "description": {"human": {"en_US": "Search"}, "llm": "Search the web"},
    }
)
REGISTRY = ToolRegistry([SEARCH])

CATS = [("search", {"q": "cats"})]
FORMS = {
    "tool_call json": ('<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>', CATS),
    "tool_call unclosed at the end": ('<tool_call>{"name": "search", "arguments": {"q": "cats"}}', CATS),
    "tool_call Title Case envelope": ('<tool_call>{"Action": "search", "Action Input": {"q": "cats"}}</tool_call>', CATS),
    "tool_call camelCase envelope": ('<tool_call>{"toolName": "search", "toolArguments": {"q": "cats"}}</tool_call>', CATS),
    "tool_call function wrapper": ('<tool_call>{"function": {"name": "search", "arguments": "{\\"q\\": \\"cats\\"}"}}</tool_call>', CATS),
    "tool_call xml": ("<tool_call><function=search><parameter=q>cats</parameter></function></tool_call>", CATS),
    "tool_call xml, closings left out": ("<tool_call><function=search><parameter=q>cats</function></tool_call>", CATS),
    "tool_call code": ('<tool_call>search(q="cats")</tool_call>', CATS),
    "tool_call python literals": ("<tool_call>{'name': 'search', 'arguments': {'q': 'cats', 'limit': None}}</tool_call>",
                                  [("search", {"q": "cats", "limit": None})]),
    "whole json": ('{"name": "search", "arguments": {"q": "cats"}}', CATS),
    "whole json, parameters key": ('{"name": "search", "parameters": {"q": "cats"}}', CATS),
    "whole json list": ('[{"name": "search", "arguments": {"q": "cats"}}]', CATS),
    "tool_calls list": ('{"tool_calls": [{"function": {"name": "search", "arguments": {"q": "cats"}}}]}', CATS),
    "fenced json": ('```json\n{"action": "search", "action_input": {"q": "cats"}}\n```', CATS),
    "python_tag token": ('<|python_tag|>{"name": "search", "parameters": {"q": "cats"}}', CATS),
    "Mistral token": ('[TOOL_CALLS][{"name": "search", "arguments": {"q": "cats"}}]', CATS),
    "end token after": ('{"name": "search", "arguments": {"q": "cats"}}<|eot_id|>', CATS),
    "Action label and blob": ('Action:\n```json\n{"action": "search", "action_input": {"q": "cats"}}\n```', CATS),
    "Action label, tool_name envelope": ('Action: {"tool_name": "search", "tool_arguments": {"q": "cats"}}', CATS),
    "unquoted words kept": ('{"name": "search", "arguments": {"q": cats and dogs}}', [("search", {"q": "cats and dogs"})]),
    "invalid escape": ('{"name": "search", "arguments": {"q": "c\\_ats"}}', [("search", {"q": "c_ats"})]),
    "trailing comma": ('{"name": "search", "arguments": {"q": "cats",},}', CATS),
}
REFUSED = {
    "a word would be lost": '{"name": "search", "arguments": {"q": 37 * 91}}',
    "a literal cut short": '{"name": "search", "arguments": {"q": tru}}',
    "a value missing": '{"name": "search", "arguments": {"q": }}',
    "a string cut off": '{"name": "search", "arguments": {"q": "ca',
    "xml value cut off": "<tool_call><function=search><parameter=q>cats",
    "two strings glued": '{"name": "search", "arguments": {"q": "cats" "dogs"}}',
}


def outcome(turn: ModelTurn):
    """What a turn makes the loop do: the calls it runs, "refused", or the answer."""
    decision = turn.decision
    if isinstance(decision, ToolCalls) and decision.calls and not decision.invalid:
        return [(call.name, call.arguments) for call in decision.calls]
    if isinstance(decision, ToolCalls | ParseFailure):
        return "refused"
    assert isinstance(decision, FinalAnswer)
    return ("answer", decision.text)


def both(text: str):
    chunks = [ModelChunk(text=text)]
    _, fc = drain(read_function_calling_turn(iter(chunks), REGISTRY.prompt_tools()))
    _, react = drain(read_react_turn(iter(chunks), REGISTRY, 1))
    return outcome(fc), outcome(react)


@pytest.mark.parametrize(("text", "calls"), FORMS.values(), ids=FORMS.keys())
def test_both_strategies_run_the_same_calls(text, calls):
    fc, react = both(text)
    assert fc == react == calls


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_both_strategies_refuse_the_same_repairs(text):
    fc, react = both(text)
    assert fc == react == "refused"
