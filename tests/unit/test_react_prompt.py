"""agent_core.react.prompt: the completion prompt's tool block (what a base model copies), stop words, and
the tools block rendered once per run."""

import json

import pytest
from dify_plugin.entities.model.message import PromptMessageTool
from dify_plugin.interfaces.agent import AgentModelConfig
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import budget, prompts
from agent_core.budget import MESSAGE_OVERHEAD, message_tokens
from agent_core.params import StrategyParams
from agent_core.react.prompt import (
    _round_parts,
    answer_note,
    chat_prompt,
    completion_head,
    completion_prompt,
    completion_tools_block,
    example_arguments,
    example_call,
    scratchpad,
    stop_words,
    tool_purpose,
    tools_block,
)
from agent_core.run_state import Round, RunState
from agent_core.tokens import estimate_tokens
from agent_core.tool_calls import ToolCall
from agent_core.tool_runner import ToolResult
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import empty_usage
from tests.unit.test_tool_schema import tool as tool_entity


def tool(name="calculator", description="Evaluate an arithmetic expression exactly.", properties=None, required=None):
    properties = properties if properties is not None else {
        "expression": {"type": "string", "description": "The expression, e.g. (649 * 0.85) * 1.2"}}
    return PromptMessageTool(name=name, description=description, parameters={
        "type": "object", "properties": properties, "required": list(properties) if required is None else required})


def test_example_arguments_take_the_descriptions_examples():
    assert example_arguments(tool()) == {"expression": "(649 * 0.85) * 1.2"}
    zone = tool("current_time", properties={
        "timezone": {"type": "string", "description": "IANA timezone name, e.g. Europe/Paris or UTC"}}, required=[])
    assert example_arguments(zone) == {"timezone": "Europe/Paris"}  # optional, but it has an example


def test_example_arguments_by_type_when_there_is_no_example():
    t = tool(properties={
        "value": {"type": "number", "description": "The quantity"},
        "count": {"type": "integer", "description": "How many, e.g. 3"},
        "ratio": {"type": "number", "description": "Ratio, e.g. inf"},
        "unit": {"type": "string", "enum": ["km", "mi"], "description": "Unit"},
        "exact": {"type": "boolean", "description": "Exact?"},
        "query": {"type": "string", "description": "Keywords to search for."},
        "note": {"type": "string", "description": "Optional note"},
    }, required=["value", "count", "ratio", "unit", "exact", "query"])
    assert example_arguments(t) == {
        "value": 1, "count": 3, "ratio": 1, "unit": "km", "exact": True, "query": "keywords to search for"}


def test_example_cut_at_its_own_closing_parenthesis():
    t = tool(properties={"unit": {"type": "string", "description": "Unit (e.g. km) of the value"}})
    assert example_arguments(t) == {"unit": "km"}


@pytest.mark.parametrize("description, purpose", [
    ("Evaluate an arithmetic expression exactly. Supports + - * /.", "evaluate an arithmetic expression exactly"),
    ("Get the current time (in a timezone).", "get the current time"),
    ("URL fetcher: reads a page", "URL fetcher: reads a page"),
    ("", "use calculator"),
])
def test_tool_purpose_is_the_first_sentence_without_asides(description, purpose):
    assert tool_purpose(tool(description=description)) == purpose


def test_example_call_names_the_real_tool_with_json_arguments():
    text = example_call(tool())
    assert text.splitlines() == [
        "Question: Evaluate an arithmetic expression exactly: (649 * 0.85) * 1.2",
        "Thought: I will use calculator.",
        "Action: calculator",
        'Action Input: {"expression": "(649 * 0.85) * 1.2"}',
    ]


def test_tool_block_ends_with_the_real_tools_calls_and_has_no_placeholder():
    tools = [tool(), tool("doc_search", "Search the docs.", {"query": {"type": "string", "description": "Keywords"}})]
    block = completion_tools_block(tools)
    assert block.rstrip().endswith('Action: doc_search\nAction Input: {"query": "keywords"}')
    assert block.index("Action: calculator") < block.index("Action: doc_search")
    assert "<" not in block and ">" not in block
    assert "Final Answer:" in block


def test_tool_block_without_tools_offers_no_action():
    block = completion_tools_block([])
    assert "Action:" not in block and "Final Answer:" in block


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(
    st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "integer", "boolean", "array", "object"]),
                           "description": st.text(max_size=60)}),
    max_size=5))
def test_example_arguments_are_json_for_any_schema(properties):
    arguments = example_arguments(tool(properties=properties))
    assert set(arguments) <= set(properties)
    assert json.loads(json.dumps(arguments)) == arguments
    assert example_call(tool(properties=properties)).count("\nAction: calculator\n") == 1


@pytest.mark.parametrize("model, mode, stops", [
    ("gpt-4o-mini", "chat", ["Observation"]),
    ("gemma3-270m", "completion", ["Observation", "\nQuestion:"]),
    ("o3-mini", "completion", []),
])
def test_stop_words(model, mode, stops):
    assert stop_words(model, mode) == stops


def test_a_runs_tools_block_is_rendered_once_and_the_prompt_is_unchanged():
    """The tools block is the same every round: rendered once per run, for each renderer."""
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}), query="q")
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search"), tool_entity("clock")]))
    rendered: list[list[str]] = []

    def render(tools):
        rendered.append([t.name for t in tools])
        return "the block"

    assert run.render_tools(render) == run.render_tools(render) == "the block"
    assert rendered == [["search", "clock"]]
    first = chat_prompt(run)
    assert chat_prompt(run) == first
    assert tools_block(run.registry.prompt_tools()) in first[0].content


def test_the_system_message_is_one_object_per_run_until_the_limit_note_comes():
    """Built once and reused, so its tokens and JSON are measured once (agent_core.memo);
    rebuilt when the limit note is added, with the note."""
    params = StrategyParams(
        model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}),
        query="q",
        instruction="Be brief.",
        maximum_iterations=2,
    )
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search")]))
    first, second = chat_prompt(run), chat_prompt(run)
    assert first[0] is second[0] and "Be brief." in first[0].content
    run.limit_reached = True
    limited = chat_prompt(run)
    assert limited[0] is not first[0]
    assert run.limit_note() and run.limit_note() in limited[0].content
    assert "Be brief." in limited[0].content


def test_memory_turns_left_unanswered_never_put_two_user_messages_in_a_row():
    """A turn whose run failed (empty answer) or only called tools leaves its question alone:
    joined with the next, so roles alternate as strict chat templates require."""
    history = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
        {"role": "tool", "content": "result", "tool_call_id": "c"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "an answer"},
        {"role": "user", "content": "third question"},
        {"role": "assistant", "content": ""},
    ]
    model = AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}, history_prompt_messages=history)
    run = RunState(params=StrategyParams(model=model, query="now"), registry=ToolRegistry([tool_entity("search")]))
    messages = chat_prompt(run)
    roles = [m.role.value for m in messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert messages[1].content == "first question\n\nsecond question"
    assert messages[-1].content.endswith("now")


def _pad_from_scratch(run: RunState, completion: bool) -> str:
    """The scratchpad joined anew from every round's text (what ``scratchpad`` returned before
    it kept the text of the rounds before)."""
    texts = ["\n".join(_round_parts(run, round_, completion)) for round_ in run.rounds]
    return "\n".join(text for text in texts if text)


def _round(index: int, kind: int) -> Round:
    usage = empty_usage()
    if kind == 0:  # a call and its observation
        call = ToolCall(id=f"c{index}", name="search", arguments={"q": f"n{index}"})
        result = ToolResult(f"c{index}", "search", call.arguments, observation="x" * (50 * index))
        return Round(index, ModelTurn(thought=f"step {index}", decision=ToolCalls((call,)), usage=usage), (result,))
    if kind == 1:  # an unreadable reply
        return Round(index, ModelTurn(thought="", decision=ParseFailure("no action"), usage=usage, raw=f"raw {index}"))
    return Round(index, ModelTurn(thought="", decision=FinalAnswer("done"), usage=usage))  # renders nothing


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), max_size=10), st.booleans())
def test_the_scratchpad_kept_from_round_to_round_is_the_one_joined_anew(steps, completion):
    """Rounds added one by one, the rounds shortened to fit changing on the way (and back):
    the scratchpad is every round's text joined, as when it was joined anew each time."""
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}), query="q")
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search")]))
    for index, (kind, shortened) in enumerate(steps, start=1):
        run.rounds.append(_round(index, kind))
        run.rounds_shortened = min(shortened, index)
        assert scratchpad(run, completion=completion) == _pad_from_scratch(run, completion)
        assert scratchpad(run, completion=completion) == _pad_from_scratch(run, completion)
        _assert_counted_in_pieces(run, completion)


def _old_completion_text(run: RunState) -> str:
    """The completion prompt's text as it was built before it was built from pieces."""
    head = completion_head(run, run.render_tools(completion_tools_block), answer_note(run))
    query = run.params.query
    current = "\n".join(filter(None, [prompts.REACT_COMPLETION_QUESTION.format(text=query), _pad_from_scratch(run, True)]))
    return "\n\n".join([head, current]).rstrip() + "\nThought:"


def _assert_counted_in_pieces(run: RunState, completion: bool) -> None:
    """The prompt message holding the scratchpad is counted from its pieces (the rounds' texts,
    each once), never under the whole text's estimate, and follows the rounds shortened to fit."""
    if completion:
        message = completion_prompt(run)[0]
        assert message.content == _old_completion_text(run)
    elif not scratchpad(run):
        return
    else:
        message = chat_prompt(run)[-2]
        assert message.content == scratchpad(run)
    assert_counted_in_pieces(message)


def assert_counted_in_pieces(message) -> None:
    """``message`` carries the pieces its text is joined from, and its count in tokens from them
    is never below the whole text's estimate nor more than 3 tokens a piece above it."""
    noted = budget._PIECES.get(message)
    assert noted is not None and "".join(noted[0]) == message.content
    pieces, kept = noted
    assert kept is None or kept == budget.pieces_tokens(pieces)  # a count kept as the pieces grew is theirs
    whole = estimate_tokens(message.content)
    assert whole <= message_tokens(message) - MESSAGE_OVERHEAD <= whole + 3 * len(pieces)


def test_a_shortened_round_is_counted_anew():
    """Trimming shortens an old round's observation: the scratchpad's count goes down with it."""
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}), query="q")
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search")]))
    for index in range(1, 6):
        call = ToolCall(id=f"c{index}", name="search", arguments={"q": f"n{index}"})
        result = ToolResult(f"c{index}", "search", call.arguments, observation=f"result {index} " * 3000)
        run.rounds.append(Round(index, ModelTurn(thought=f"step {index}", decision=ToolCalls((call,)), usage=empty_usage()), (result,)))
    full = message_tokens(chat_prompt(run)[-2])
    run.rounds_shortened = 3
    pad = chat_prompt(run)[-2]
    assert message_tokens(pad) < full - 2 * 3000
    assert message_tokens(pad) - MESSAGE_OVERHEAD >= estimate_tokens(pad.content)


def test_the_continue_note_is_one_message_per_run():
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}), query="q")
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search")]))
    run.rounds.append(_round(1, 0))
    first, second = chat_prompt(run), chat_prompt(run)
    assert first[-1] is second[-1] and first[-1].content == prompts.REACT_CONTINUE


def test_the_continue_note_cannot_be_read_as_the_users_reply():
    """junjiem/dify-plugin-agent-mcp_sse#83 and langgenius/dify#15694: a strategy that sent a bare
    "continue" as a user message after each observation had the model reason that the user had
    just written "continue" and answer that instead of the question. The note after the
    scratchpad says it is not from the user and points back to the user's question."""
    note = prompts.REACT_CONTINUE.lower()
    assert "not from the user" in note and "user's question" in note
    assert not note.startswith("continue")


def test_a_chat_prompt_asking_for_the_rest_of_a_cut_answer_ends_asking_for_that_rest():
    """The last message a chat model reads after a cut answer asks for its rest, not for a new
    Thought and Action (which contradicted the scratchpad's note and invited a tool call)."""
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}), query="q")
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search")]))
    cut = ModelTurn(thought="done", decision=FinalAnswer("The answer is"), usage=empty_usage(), finish_reason="length")
    run.rounds.append(Round(1, cut, ()))
    assert cut.cut
    assert chat_prompt(run)[-1].content == prompts.CONTINUE_CUT_ANSWER
    run.rounds.append(_round(2, 0))
    assert chat_prompt(run)[-1].content == prompts.REACT_CONTINUE


@pytest.mark.parametrize("why", ["iterations", "repeated", "time"])
def test_a_chat_prompt_that_must_answer_ends_asking_for_the_answer_not_an_action(why):
    """Wave 37 blind harness: at the iteration limit (or repeated calls, or the time limit) the
    system prompt said "Do not call any more tools" while the last message, the one a model
    follows most, still asked for "either an Action or your Final Answer"; a model that then
    called a tool ended the run with the agent's "stopped without a final answer" notice."""
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}),
                            query="q", maximum_iterations=1)
    run = RunState(params=params, registry=ToolRegistry([tool_entity("search")]))
    run.rounds.append(_round(1, 0))
    assert chat_prompt(run)[-1].content == prompts.REACT_CONTINUE
    run.limit_reached = True
    run.repeating = ("search",) if why == "repeated" else ()
    run.out_of_time = why == "time"
    messages = chat_prompt(run)
    assert run.limit_note() and run.limit_note() in messages[0].content
    last = messages[-1].content
    assert last == prompts.REACT_CONTINUE_ANSWER_NOW
    assert "Action" not in last and "Final Answer" in last and "not from the user" in last
    cut = ModelTurn(thought="", decision=FinalAnswer("The answer is"), usage=empty_usage(), finish_reason="length")
    run.rounds.append(Round(2, cut, ()))
    assert chat_prompt(run)[-1].content == prompts.CONTINUE_CUT_ANSWER  # the rest of a cut answer first


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_scratchpad_message_built_unvalidated_is_the_validated_one(text):
    # the scratchpad's message is built each round without pydantic's validation: the model,
    # what it dumps (what the model plugin receives), its fields set and its own tool_calls list
    # must be what AssistantPromptMessage(content=text) gives
    from dify_plugin.entities.model.message import AssistantPromptMessage

    from agent_core.react.prompt import _ASSISTANT_UNVALIDATED, assistant_text

    assert _ASSISTANT_UNVALIDATED  # dify_plugin 0.10.2: the fast path is the one taken
    fast, slow = assistant_text(text), AssistantPromptMessage(content=text)
    assert type(fast) is type(slow) and fast == slow
    assert fast.model_dump() == slow.model_dump() and fast.model_dump_json() == slow.model_dump_json()
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.tool_calls == [] and fast.tool_calls is not assistant_text(text).tool_calls
