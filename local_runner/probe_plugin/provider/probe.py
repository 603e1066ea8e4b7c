"""Provider of the runner probe plugin."""

from dify_plugin.interfaces.agent import AgentProvider


class ProbeProvider(AgentProvider):
    """Permits every run."""
