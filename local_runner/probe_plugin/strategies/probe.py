"""The probe strategy: everything the runner must serve, in one short run.

1. a "PROBE" log entry (start), 2. one streamed LLM call (text forwarded as text messages),
3. every tool call of the answer run in parallel threads (gevent greenlets), 4. one json
message ``{"probe": {...}}`` reporting what the SDK parsed (so tests see the plugin's view),
5. the log entry finished. ``fail`` raises instead (a session error).
"""

import json
import time
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.model.llm import LLMModelConfig
from dify_plugin.entities.model.message import UserPromptMessage
from dify_plugin.interfaces.agent import AgentStrategy, ToolEntity

STATUS = InvokeMessage.LogMessage.LogStatus


class ProbeStrategy(AgentStrategy):
    """See the module docstring."""

    def _invoke(self, parameters: dict[str, Any]) -> Generator[AgentInvokeMessage, None, None]:
        if parameters.get("fail"):
            raise ValueError(parameters["fail"])
        log = self.create_log_message(label="PROBE", data={}, status=STATUS.START)
        yield log
        tools = [ToolEntity(**tool) for tool in parameters.get("tools") or []]
        report: dict[str, Any] = {"text": "", "tool_calls": [], "usage": None, "finish_reason": None}
        for chunk in self._ask(parameters, tools):
            content = chunk.delta.message.content
            if isinstance(content, str) and content:
                report["text"] += content
                yield self.create_text_message(content)
            report["tool_calls"].extend(call.model_dump(mode="json") for call in chunk.delta.message.tool_calls)
            report["usage"] = chunk.delta.usage.model_dump(mode="json") if chunk.delta.usage else report["usage"]
            report["finish_reason"] = chunk.delta.finish_reason or report["finish_reason"]
        report["tool_results"] = self._run_tools(report["tool_calls"], tools)
        yield self.create_json_message({"probe": report})
        yield self.finish_log_message(log=log, status=STATUS.SUCCESS, data={"calls": len(report["tool_calls"])})

    def _ask(self, parameters: dict[str, Any], tools: list[ToolEntity]) -> Any:
        model = parameters["model"]
        config = LLMModelConfig(
            **{key: model[key] for key in ("provider", "model", "model_type", "mode", "completion_params")}
        )
        return self.session.model.llm.invoke(
            model_config=config,
            prompt_messages=[UserPromptMessage(content=parameters["query"])],
            tools=self._init_prompt_tools(tools),
            stop=["STOP"],
            stream=True,
        )

    def _run_tools(self, calls: list[dict[str, Any]], tools: list[ToolEntity]) -> list[dict[str, Any]]:
        by_name = {tool.identity.name: tool for tool in tools}
        with ThreadPoolExecutor(max_workers=8) as pool:
            return list(pool.map(lambda call: self._run_tool(call, by_name), calls))

    def _run_tool(self, call: dict[str, Any], by_name: dict[str, ToolEntity]) -> dict[str, Any]:
        started = time.monotonic()
        tool = by_name.get(call["function"]["name"])
        if tool is None:
            return {"id": call["id"], "error": f"unknown tool {call['function']['name']!r}"}
        arguments = {**tool.runtime_parameters, **json.loads(call["function"]["arguments"] or "{}")}
        try:
            messages = list(
                self.session.tool.invoke(
                    provider_type=tool.provider_type,
                    provider=tool.identity.provider,
                    tool_name=tool.identity.name,
                    parameters=arguments,
                )
            )
        except Exception as exc:  # reported, not raised: the probe shows what the SDK saw
            return {"id": call["id"], "error": str(exc), "started": started, "finished": time.monotonic()}
        return {
            "id": call["id"],
            "messages": [message.model_dump(mode="json") for message in messages],
            "started": started,
            "finished": time.monotonic(),
        }
