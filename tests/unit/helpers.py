"""Helpers shared by the unit tests."""

import pytest
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.model.message import PromptMessageTool
from dify_plugin.interfaces.agent import AgentStrategy

from agent_core.react.parser import ActionFound

CALCULATOR = PromptMessageTool(
    name="calculator",
    description="Evaluate an arithmetic expression",
    parameters={"type": "object", "properties": {"expression": {"type": "string", "description": "The expression"}},
                "required": ["expression"]},
)
"""The one tool of the contract backends' unit tests, as a model plugin receives it
(``.model_dump(mode="json")`` gives the request's ``tools`` item)."""


class LoopStrategy:
    """The strategy surface ``AgentLoop`` uses, with no session: the SDK's own message builders."""

    session = None
    response_type = AgentInvokeMessage
    create_text_message = AgentStrategy.create_text_message
    create_json_message = AgentStrategy.create_json_message
    create_retriever_resource_message = AgentStrategy.create_retriever_resource_message


def merged(events):
    """Adjacent ReAct parser deltas of the same kind joined: the view of the events that the
    chunking of the stream must not change."""
    out = []
    for event in events:
        if out and not isinstance(event, ActionFound) and type(out[-1]) is type(event):
            out[-1] = type(event)(out[-1].text + event.text)
        else:
            out.append(event)
    return out


def drain(reader):
    """Run a turn reader to its end: (the text it streamed, joined; the value it returned)."""
    streamed = []
    while True:
        try:
            streamed.append(next(reader))
        except StopIteration as stop:
            return "".join(streamed), stop.value


def failing(pieces):
    """Model chunks of ``pieces``, then the stream fails (``ConnectionError``)."""
    from agent_core.model_call import ModelChunk

    yield from (ModelChunk(text=piece) for piece in pieces)
    raise ConnectionError("connection reset by peer")


def shown_before_failure(reader):
    """The text a turn reader yielded before the error its chunks raised came through."""
    streamed = []
    with pytest.raises(ConnectionError):
        while True:
            streamed.append(next(reader))
    return "".join(streamed)


def gap_param(*values, gap: str | None, id: str):
    """``pytest.param(*values, id=id)``, a strict xfail with ``gap`` as its reason when there is
    one (a known reading gap: the case starts passing, the mark must go)."""
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(*values, marks=marks, id=id)
