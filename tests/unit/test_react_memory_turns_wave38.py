"""ReAct's memory (``plain_history``): tool rounds of memory become text turns that alternate."""

from dify_plugin.entities.model.message import AssistantPromptMessage, ToolPromptMessage, UserPromptMessage

from agent_core.react.prompt import plain_history


def call(call_id: str) -> AssistantPromptMessage.ToolCall:
    return AssistantPromptMessage.ToolCall(
        id=call_id, type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="t", arguments="{}")
    )


def test_a_tool_rounds_text_and_the_answer_become_one_assistant_message():
    """"Let me check." with a call, its result, then the answer: without the tool turn, two
    assistant messages would follow each other (Hunyuan refuses that); they are one, in order."""
    history = [
        UserPromptMessage(content="What time is it?"),
        AssistantPromptMessage(content="Let me check.", tool_calls=[call("x")]),
        ToolPromptMessage(content="14:00", tool_call_id="x", name="t"),
        AssistantPromptMessage(content="It is 14:00."),
        UserPromptMessage(content="Thanks"),
        AssistantPromptMessage(content="You're welcome."),
    ]
    kept = plain_history(history)
    assert [(m.role.value, m.content) for m in kept] == [
        ("user", "What time is it?"),
        ("assistant", "Let me check.\n\nIt is 14:00."),
        ("user", "Thanks"),
        ("assistant", "You're welcome."),
    ]


def test_a_blank_text_before_calls_is_left_out():
    history = [
        UserPromptMessage(content="q"),
        AssistantPromptMessage(content="\n\n", tool_calls=[call("x")]),
        ToolPromptMessage(content="r", tool_call_id="x", name="t"),
        AssistantPromptMessage(content="a"),
    ]
    assert [(m.role.value, m.content) for m in plain_history(history)] == [("user", "q"), ("assistant", "a")]
