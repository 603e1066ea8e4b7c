"""ToolRunner in-process, for the paths the end-to-end tests cannot reach through Dify's inputs."""

from agent_core.logs import LogNode
from agent_core.tool_calls import ToolCall
from agent_core.tool_runner import CallOrder, ToolRunner, starts_in_time
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


def test_a_round_of_many_calls_streams_its_messages_from_the_first_call_on(monkeypatch):
    """With more calls than run at once, the first CALL node reaches the consumer before the
    later calls have started (they used to be held back until the last call had started, then
    written in one burst), never more than ``max_parallel`` calls run at once, the drain gives
    way between messages, and the results come back in call order."""
    import gevent

    from agent_core import tool_runner

    entity = tool(parameters=[param("q")])
    registry = ToolRegistry([entity])
    started: list[str] = []
    running = [0, 0]  # now, most at once

    def invoke(session, entity, parameters):
        started.append(parameters["q"])
        running[0] += 1
        running[1] = max(running)
        try:
            gevent.sleep(0.001)
            yield {"type": "text", "message": {"text": f"out {parameters['q']}"}, "meta": None}
        finally:
            running[0] -= 1

    ways = []
    monkeypatch.setattr(tool_runner, "invoke_tool_raw", invoke)
    monkeypatch.setattr(tool_runner, "give_way", lambda: ways.append(1))
    runner = ToolRunner(None, registry, timeout=5, max_parallel=3, observation_tokens=1000)
    calls = [ToolCall(f"call_{n}", entity.identity.name, {"q": str(n)}) for n in range(12)]
    stream = runner.run(LogNode("ROUND 1"), calls)
    first = next(stream)
    assert first.message.label.startswith("CALL") and len(started) <= 3
    messages = [first]
    try:
        while True:
            messages.append(next(stream))
    except StopIteration as finished:
        results = finished.value
    assert [r.call_id for r in results] == [c.id for c in calls]
    assert [r.observation for r in results] == [f"out {n}" for n in range(12)]
    assert running[1] == 3 and len(started) == 12
    assert len(ways) >= len(messages)


def test_call_order_releases_what_reaches_the_user_in_call_order_and_never_holds_logs():
    """Call 2 and then call 1 finish before call 0: their files wait for call 0 and then go in call
    order; a log entry goes at once; a file of the first unfinished call goes at once."""
    order = CallOrder()
    assert order.add(2, "file of call 2", ordered=True) == []
    assert order.add(1, "file of call 1", ordered=True) == []
    assert order.add(2, "CALL node of call 2", ordered=False) == ["CALL node of call 2"]
    assert order.finish(2) == [] and order.finish(1) == []
    assert order.add(0, "file of call 0", ordered=True) == ["file of call 0"]
    assert order.finish(0) == ["file of call 1", "file of call 2"]
    assert order.add(3, "file of call 3", ordered=True) == ["file of call 3"]


def test_a_call_that_waited_for_a_free_place_past_the_deadline_is_not_run():
    """Given a second each, the waiting calls of a 64-call reply ran seven seconds past the round's
    deadline; one of the first calls is still tried however late the round began."""
    assert starts_in_time(10.0, 9.9, queued=True)
    assert not starts_in_time(10.0, 10.0, queued=True)
    assert starts_in_time(10.0, 12.0, queued=False)  # it gets LEAST_CALL_SECONDS
    assert starts_in_time(None, 1e9, queued=True)
