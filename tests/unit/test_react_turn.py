"""agent_core.react.turn: a ReAct reply read into what the round does."""

from agent_core.model_call import ModelChunk
from agent_core.react import turn as turn_module
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import ToolCalls
from tests.unit.helpers import drain


def test_a_reply_of_thousands_of_actions_is_turned_into_calls_giving_way_between_two(monkeypatch):
    """A 5 MB reply of 50,000 Action blocks was turned into calls in 0.75 s without letting another
    session of the process run."""
    ways = []
    monkeypatch.setattr(turn_module, "give_way", lambda: ways.append(1))
    reply = "".join(
        f'Thought: step {n}\nAction:\n```json\n{{"action": "lookup", "action_input": {{"q": "{n}"}}}}\n```\n'
        for n in range(400)
    )
    _, turn = drain(read_react_turn(iter([ModelChunk(text=reply), ModelChunk(finish_reason="stop")]), ToolRegistry(None), 1))
    assert isinstance(turn.decision, ToolCalls) and len(turn.decision.calls) == 400
    assert len(ways) >= 400
