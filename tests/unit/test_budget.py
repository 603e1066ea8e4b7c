"""Prompt budget arithmetic and the memoized token count."""

from dify_plugin.entities.model.message import AssistantPromptMessage, ToolPromptMessage, UserPromptMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.budget import SEGMENT_CHARS, count_tokens, history_turns
from agent_core.tokens import estimate_tokens


@settings(max_examples=50)
@given(st.lists(st.text(max_size=300), min_size=1, max_size=80))
def test_segmented_count_stays_close_to_the_full_estimate(lines):
    text = "\n".join(lines) * 10
    segments = len(text) // SEGMENT_CHARS + 1
    assert abs(count_tokens(text) - estimate_tokens(text)) <= segments


def test_history_turns_start_at_user_messages_and_keep_tool_results_with_their_calls():
    history = [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content="", tool_calls=[]),
        ToolPromptMessage(content="r", tool_call_id="a"),
        UserPromptMessage(content="q2"),
    ]
    assert [len(turn) for turn in history_turns(history)] == [3, 1]
