"""A run closed while parallel tool calls are running (the user stopped it, or the daemon ended
the session) stops those calls: none goes on calling its tool unseen."""

import time
from pathlib import Path

import gevent

from agent_core import loop as loop_module
from agent_core import tool_runner
from agent_core.model_call import ModelChunk
from agent_core.params import StrategyParams, read_params
from agent_core.tool_calls import ToolCallDelta
from local_runner import Scenario
from local_runner.tools import ScriptedTool, ToolBox, ToolParam
from strategies.function_calling import FunctionCallingSteps
from tests.unit.helpers import LoopStrategy


def test_closing_the_run_stops_its_parallel_calls(monkeypatch):
    tools = [ScriptedTool(name=name, description="d", parameters=[ToolParam("x")], responses=[]) for name in ("a", "b")]
    scenario = Scenario(strategy="function_calling", query="q", tools=["a", "b"])
    params = read_params(StrategyParams, scenario.run_request(ToolBox(tools), Path("."), None).params)
    steps_taken: list[str] = []

    def model(session, model, request, **waits):
        yield ModelChunk(tool_calls=(ToolCallDelta(0, "1", "a", '{"x": "1"}'), ToolCallDelta(1, "2", "b", '{"x": "2"}')))
        yield ModelChunk(finish_reason="tool_calls")

    def tool(session, entity, parameters):
        for step in range(6):
            gevent.sleep(0.1)
            steps_taken.append(entity.identity.name)
            yield {"type": "text", "message": {"text": f"step {step}"}, "meta": None}

    monkeypatch.setattr(loop_module, "invoke_model", model)
    monkeypatch.setattr(tool_runner, "invoke_tool_raw", tool)
    run = loop_module.AgentLoop(LoopStrategy(), FunctionCallingSteps(), params).run()
    for message in run:
        if str(getattr(message.message, "label", "")).startswith("CALL"):
            gevent.sleep(0.15)  # both calls are running
            break
    run.close()
    taken = len(steps_taken)
    started = time.monotonic()
    while time.monotonic() - started < 0.5:
        gevent.sleep(0.05)
    assert len(steps_taken) == taken, "a call went on after the run was closed"
