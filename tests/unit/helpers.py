"""Helpers shared by the unit tests."""

from agent_core.react.parser import ActionFound


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
