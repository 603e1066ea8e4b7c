"""The error a run ends with when it cannot reach an answer."""


class AgentRunError(Exception):
    """The run could not reach an answer; the message says why, for the user (Dify shows it as
    the node's error)."""
