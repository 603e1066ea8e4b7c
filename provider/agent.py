"""The agent-strategy provider. Agent providers have no credentials to check."""

from dify_plugin.interfaces.agent import AgentProvider


class RobustAgentProvider(AgentProvider):
    """Provider class the SDK loads from ``provider/agent.yaml``; it permits every run."""
