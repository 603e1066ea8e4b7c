"""Local runner: plays Dify's plugin daemon so the agent strategies run with no Dify at all.

Never imported by plugin code and never packaged. Entry points: ``python -m local_runner``
(see ``cli``) and the Python API below.
"""

from local_runner.backends import (
    LLMBackend,
    OpenAICompatibleBackend,
    Pricing,
    ScriptedBackend,
    ScriptError,
    make_chunk,
    make_usage,
)
from local_runner.builtin_tools import builtin_tools, default_toolbox
from local_runner.daemon import PluginError, PluginProcess, RunHandle, RunRequest
from local_runner.result import LogNode, RunResult
from local_runner.scenario import ModelSettings, Scenario, run_scenario
from local_runner.tools import LocalTool, ScriptedTool, ToolBox, ToolParam, json_message, text_message

__all__ = [
    "LLMBackend",
    "LocalTool",
    "LogNode",
    "ModelSettings",
    "OpenAICompatibleBackend",
    "PluginError",
    "PluginProcess",
    "Pricing",
    "RunHandle",
    "RunRequest",
    "RunResult",
    "Scenario",
    "ScriptError",
    "ScriptedBackend",
    "ScriptedTool",
    "ToolBox",
    "ToolParam",
    "builtin_tools",
    "default_toolbox",
    "json_message",
    "make_chunk",
    "make_usage",
    "run_scenario",
    "text_message",
]
