"""ToolRunner in-process, for the paths the end-to-end tests cannot reach through Dify's inputs."""

from agent_core.logs import LogNode
from agent_core.tool_calls import ToolCall
from agent_core.tool_runner import ToolRunner
from agent_core.tool_schema import ToolRegistry
from tests.unit.test_tool_schema import param, tool


def _run(runner, calls):
    """The messages ``runner.run`` yields and the results it returns."""
    stream = runner.run(LogNode("ROUND 1"), calls)
    messages = []
    try:
        while True:
            messages.append(next(stream))
    except StopIteration as finished:
        return messages, finished.value


def test_parameters_that_cannot_be_worked_out_fail_the_call_with_its_node_finished(monkeypatch):
    """A slip while working out the tool's parameters is the call's error, told to the model; the
    CALL node ends with it and logs the model's arguments; nothing reaches the daemon."""
    entity = tool(parameters=[param("q")])
    registry = ToolRegistry([entity])

    def slip(*_):
        raise ValueError("cannot coerce")

    monkeypatch.setattr(registry, "invocation_parameters", slip)
    runner = ToolRunner(None, registry, timeout=5, observation_tokens=1000)  # no session: never called
    messages, results = _run(runner, [ToolCall("call_1", entity.identity.name, {"q": "x"})])
    (result,) = results
    assert "cannot coerce" in result.observation and "cannot coerce" in (result.error or "")
    assert result.sent is None
    finished = [m.message for m in messages if m.message.status.value != "start"]
    assert len(finished) == 1 and finished[0].error and "cannot coerce" in finished[0].error
