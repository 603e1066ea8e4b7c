"""Running one round's tool calls: concurrently, each bounded in time, none lost.

Several calls of one round run in gevent greenlets (the SDK's own concurrency model:
importing ``dify_plugin`` monkey-patches the process), at most ``max_parallel`` at once; a
lone call runs in the strategy's own greenlet, sparing the hand-off (some 50 µs a round).
Their log messages reach Dify as they happen; what they forward to the user (files,
citations) reaches it in call order, a call's as soon as every earlier call has finished; results
come back in call order. A call that is refused (unknown tool, bad
arguments, repeated), fails or times out still yields a ``ToolResult`` whose
observation tells the model what happened.
"""

import itertools
import time
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from dify_plugin.core.entities.invocation import InvokeType
from dify_plugin.core.runtime import BackwardsInvocation, Session
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.tool import ToolProviderType
from dify_plugin.interfaces.agent import ToolEntity
from gevent.pool import Group
from gevent.queue import Queue

from agent_core import prompts
from agent_core.fairness import give_way
from agent_core.json_args import MAX_DEPTH, too_deep
from agent_core.line_budget import TOOL_ARGUMENTS_BYTES, TOOL_REQUEST_BYTES, encoded_size
from agent_core.logs import LogNode
from agent_core.observation import ObservationCollector, ToolOutcome
from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.tool_schema import Converted, ToolRegistry
from agent_core.waiting import END, daemon_events, next_within

DEFAULT_MAX_PARALLEL = 8
"""Tool calls of one round that may run at the same time."""

LEAST_CALL_SECONDS = 1.0
"""Seconds a call gets however near the run's deadline: one that cannot run in time says it
timed out, rather than not being tried."""


@dataclass(frozen=True)
class ToolResult:
    """The result of one tool call, as the model and the log see it.

    ``arguments`` is the model's arguments (a dict, or the raw text of an
    invalid call); ``observation`` what the model reads; ``full_text`` the
    complete output for the log; ``error`` a message when the call did not
    succeed; ``elapsed`` seconds; ``sent`` the parameters the tool was invoked
    with, secrets redacted (``ToolRegistry.logged_parameters``), None when it
    was not invoked.
    """

    call_id: str
    name: str
    arguments: dict[str, Any] | str
    observation: str
    error: str | None = None
    full_text: str = ""
    elapsed: float = 0.0
    sent: dict[str, Any] | None = None

    def log_entry(self) -> dict[str, Any]:
        """The shape Dify's official strategies log for a tool response; the input is what the
        tool received (the values the user fixed in the node included), else the model's
        arguments."""
        return {
            "tool_call_id": self.call_id,
            "tool_call_name": self.name,
            "tool_call_input": self.sent if self.sent is not None else self.arguments,
            "tool_response": self.full_text or self.observation,
        }


def tool_payload(session: Session, tool: ToolEntity, parameters: dict[str, Any]) -> dict[str, Any]:
    """The backwards ``tool`` request body, as the SDK's ``ToolInvocation.invoke`` builds it
    (``credential_id`` from the tool, else from the session's tool credentials)."""
    payload: dict[str, Any] = {
        "tool_type": tool.provider_type.value,
        "provider": tool.identity.provider,
        "tool": tool.identity.name,
        "tool_parameters": parameters,
    }
    if session.app_id:
        payload["app_id"] = session.app_id
    credential_id = tool.credential_id or session.context.credentials.get_credential_id(tool.identity.provider)
    if credential_id:
        payload["credential_id"] = credential_id
    return payload


class _ToolStream(BackwardsInvocation[Any]):
    """The SDK's backwards call, read item by item without giving up on an odd item.

    The SDK's reader (``BackwardsInvocation._line_converter_wrapper``, dify_plugin 0.10.2
    ``core/runtime.py``) ends a stream quietly at an item whose ``data`` is null and fails the
    whole call at one that is not an object, losing the tool's later messages. This reader keeps
    the SDK's waiting, ``end`` and ``error`` handling and yields every item's ``data`` as it came
    (null, a list, a string...): ``ObservationCollector`` reports what it cannot read in the
    CALL node and keeps the rest.
    """

    def _line_converter_wrapper(self, generator: Iterator[Any], data_type: type) -> Iterator[Any]:
        for event in daemon_events(generator, self.session):
            kind = event.get("event")
            if kind == "end":
                return
            if kind == "error":
                raise Exception(str(event.get("message") or "the daemon reported an error"))
            yield event.get("data")


def invoke_tool_raw(session: Session, tool: ToolEntity, parameters: dict[str, Any]) -> Iterator[Any]:
    """Call a tool through the daemon and yield its ``ToolInvokeMessage`` dicts unparsed (and
    any item that is not one, as it came).

    ``session.tool.invoke`` would validate each message into the SDK's
    ``ToolInvokeMessage`` and fail the whole call on a type it does not know
    (Dify's newer ``binary_link``, a message missing its type: dop628), and the SDK's reader
    stops at an item that is null or not an object (``_ToolStream``); raw items let
    ``ObservationCollector`` keep every message it can read.
    """
    return _ToolStream(session)._backwards_invoke(InvokeType.Tool, dict, tool_payload(session, tool, parameters))


def _too_large(arguments: dict[str, Any]) -> bool:
    """Whether ``arguments`` take more than ``TOOL_ARGUMENTS_BYTES`` once encoded (a bound from
    their length first: the usual call is far below it). Gives way between the two measures."""
    if len(str(arguments)) * 6 <= TOOL_ARGUMENTS_BYTES:
        return False
    give_way()  # megabytes of arguments: two passes in C, the other sessions between them
    return encoded_size(arguments) > TOOL_ARGUMENTS_BYTES


def _request_surely_fits(tool: ToolEntity, parameters: dict[str, Any]) -> bool:
    """Whether the backwards ``tool`` request with ``parameters`` fits ``TOOL_REQUEST_BYTES`` by a
    bound from its text's length (6 bytes a character at most, as ``_too_large``): the usual call,
    far below it, is not encoded to learn so (``request_size`` measures the others)."""
    return len(str([tool.identity.provider, tool.identity.name, tool.credential_id, parameters])) * 6 <= TOOL_REQUEST_BYTES


def request_size(tool: ToolEntity, parameters: dict[str, Any]) -> int:
    """Bytes the backwards ``tool`` request for ``tool`` with ``parameters`` (as
    ``ToolRegistry.invocation_parameters`` gives them) takes once encoded, less its envelope
    (see ``tool_payload``)."""
    return encoded_size([tool.identity.provider, tool.identity.name, tool.credential_id, parameters])


class CallOrder:
    """Releases the messages of calls that run at once so that what reaches the user (files,
    citations) comes in call order, as the model reads the results, whatever call finishes first:
    a file of a later call is held until every earlier call has finished. Log messages are never
    held (a slow call does not hold back the others' CALL nodes). Positions are 0-based call
    indexes; every method returns the messages to send now, in order."""

    def __init__(self) -> None:
        self._head = 0  # the first call not finished: its messages go at once
        self._held: dict[int, list[Any]] = {}
        self._finished: set[int] = set()

    def add(self, position: int, message: Any, *, ordered: bool) -> list[Any]:
        """Take ``message`` of call ``position``; ``ordered``: it must keep call order."""
        if not ordered or position <= self._head:
            return [message]
        self._held.setdefault(position, []).append(message)
        return []

    def finish(self, position: int) -> list[Any]:
        """Call ``position`` has finished: the messages held for the calls after it that may go now."""
        self._finished.add(position)
        out: list[Any] = []
        while self._head in self._finished:
            self._finished.discard(self._head)
            self._head += 1
            out.extend(self._held.pop(self._head, ()))
        return out


def _keeps_order(message: AgentInvokeMessage) -> bool:
    """Whether a call's message reaches the user in call order (anything but a log entry)."""
    return message.type != AgentInvokeMessage.MessageType.LOG


def starts_in_time(deadline: float | None, now: float, *, queued: bool) -> bool:
    """Whether a call that would start at ``now`` may still be run (``time.monotonic()`` values;
    ``deadline`` None: the round has none). One of the round's first calls always runs, with at
    least ``LEAST_CALL_SECONDS`` (``queued`` False); one that waited for a free place runs only
    before the ``deadline``: given that second each, a reply of 64 slow calls, eight at a time,
    ran seven seconds past it and left the answer round no time."""
    return not queued or deadline is None or now < deadline


class ToolTimeoutError(Exception):
    """A tool call ran past its time limit."""


class ToolRunner:
    """Runs tool calls through the daemon (``invoke_tool_raw``: the SDK's backwards call with raw
    dicts, since ``session.tool.invoke`` would fail a whole call on one message type it does
    not know).

    Args:
        session: the SDK session of the current invocation.
        registry: the tools configured in the node (exact names only).
        timeout: seconds one call may take.
        max_parallel: calls run at once.
        observation_tokens: budget of one observation.
    """

    def __init__(
        self,
        session: Session,
        registry: ToolRegistry,
        *,
        timeout: float,
        max_parallel: int = DEFAULT_MAX_PARALLEL,
        observation_tokens: int,
    ) -> None:
        self._session = session
        self._registry = registry
        self._timeout = timeout
        self._max_parallel = max_parallel
        self._observation_tokens = observation_tokens

    def run(
        self,
        parent: LogNode,
        calls: Sequence[ToolCall | InvalidToolCall],
        refusals: Mapping[str, str] | None = None,
        *,
        deadline: float | None = None,
    ) -> Generator[AgentInvokeMessage, None, list[ToolResult]]:
        """Run ``calls`` under ``parent`` (an ``InvalidToolCall`` among them is reported, not run).

        ``refusals`` maps a call id to the observation to give instead of
        running it. ``deadline`` (a ``time.monotonic()`` value): no call runs past it (one started
        before it gets at least ``LEAST_CALL_SECONDS``; one that waited for a free place until
        after it is not run, and the model is told why: ``starts_in_time``). Yields log
        and forwarded messages as they happen; returns one result per call, in the order given.
        A lone call runs in the caller's greenlet (no hand-off); several run at
        once, at most ``max_parallel``, each in a greenlet of its own, all stopped
        when this generator is closed (the run was cancelled or failed).
        """
        steps = [
            self._call(parent, call, (refusals or {}).get(call.id), deadline, queued=n >= self._max_parallel)
            for n, call in enumerate(calls)
        ]
        if len(steps) == 1:
            return [(yield from steps[0])]
        return (yield from self._in_parallel(steps))

    def _in_parallel(
        self, steps: list[Generator[AgentInvokeMessage, None, ToolResult]]
    ) -> Generator[AgentInvokeMessage, None, list[ToolResult]]:
        """Drive each call's steps in a greenlet, at most ``max_parallel`` at once: the next call
        starts when one has finished. Log messages are yielded as they come, from the first ones on
        (not once the last call has started: with thousands of calls in one reply, every CALL
        node would otherwise be held back and then written in one burst), what goes to the user
        in call order (`CallOrder`), giving way between two (a backlog of messages must not hold
        the other sessions, or the SDK's heartbeat)."""
        results: list[ToolResult | None] = [None] * len(steps)
        queue: Queue = Queue()
        done = object()
        order = CallOrder()

        def work(position: int, step: Generator[AgentInvokeMessage, None, ToolResult]) -> None:
            try:
                while True:
                    queue.put((position, next(step)))
            except StopIteration as finished:
                results[position] = finished.value
            finally:
                queue.put((position, done))

        group = Group()
        waiting = iter(enumerate(steps))
        for position, step in itertools.islice(waiting, max(1, self._max_parallel)):
            group.spawn(work, position, step)
        remaining = len(steps)
        try:
            while remaining:
                at, item = queue.get()
                if item is done:
                    remaining -= 1
                    for position, step in itertools.islice(waiting, 1):  # its place goes to the next call
                        group.spawn(work, position, step)
                    yield from order.finish(at)
                else:
                    yield from order.add(at, item, ordered=_keeps_order(item))
                give_way()
        finally:  # closed early (the run cancelled or failed): no call goes on running unseen
            group.kill(block=False)
        return [result for result in results if result is not None]

    def _call(
        self, parent: LogNode, call: ToolCall | InvalidToolCall, refusal: str | None, deadline: float | None,
        *, queued: bool = False,
    ) -> Generator[AgentInvokeMessage, None, ToolResult]:
        """One call from its CALL node's start to its finish; returns its result (``queued``: it
        waits for a free place, ``starts_in_time``)."""
        arguments = call.arguments if isinstance(call, ToolCall) else call.raw_arguments
        node = LogNode(f"CALL {call.name or '(no name)'}", parent=parent, provider=self._provider_of(call.name))
        yield node.start({"tool_name": call.name, "tool_input": arguments})
        started = time.perf_counter()
        try:
            result = yield from self._result(call, refusal, arguments, started, deadline, queued)
        except Exception as error:  # a bug of ours must not leave the node open
            message = f"internal error while running the tool: {type(error).__name__}: {error}"
            message = self._registry.secret_forms().redact(message)  # it may quote a parameter
            result = ToolResult(call.id, call.name, arguments, observation=f"Error: {message}", error=message,
                                elapsed=time.perf_counter() - started)
        yield node.finish({"output": result.log_entry()}, error=result.error)
        return result

    def _provider_of(self, name: str) -> str | None:
        """The provider id of the tool offered as ``name`` (``langgenius/time/time``), or None for
        a name the node has no tool under. On a CALL node's metadata Dify's Agent node looks it
        up to show that tool's icon next to the entry (``AgentNode._transform_message``, LOG
        messages with ``metadata.provider``), as it does for the official strategies' CALL nodes."""
        tool = self._registry.get(name) if name else None
        return (tool.identity.provider or None) if tool is not None else None

    def _result(
        self, call: ToolCall | InvalidToolCall, refusal: str | None, arguments: dict[str, Any] | str, started: float,
        deadline: float | None, queued: bool = False,
    ) -> Generator[AgentInvokeMessage, None, ToolResult]:
        """The call's result (``arguments``: the model's, as the log shows them), its ``elapsed``
        time counted from ``started`` (a ``time.perf_counter()`` value) as it is made."""
        if isinstance(call, ToolCall) and not refusal:
            call = self._unwrapped(call)
        problem, converted = (refusal, None) if refusal else self._checked(call)
        if problem:
            # arguments too large to send go back to the model as {} (its tool message says why)
            arguments = {} if isinstance(call, ToolCall) and _too_large(call.arguments) else arguments
            return ToolResult(call.id, call.name, arguments, observation=problem, error=problem,
                              elapsed=time.perf_counter() - started)
        assert isinstance(call, ToolCall)
        if not starts_in_time(deadline, time.monotonic(), queued=queued):
            problem = prompts.NOT_RUN_AT_TIME_LIMIT.format(name=call.name)
            return ToolResult(call.id, call.name, arguments, observation=problem, error=problem,
                              elapsed=time.perf_counter() - started)
        tool = self._registry.get(call.name)
        assert tool is not None
        try:
            parameters: dict[str, Any] | Exception = self._registry.invocation_parameters(tool, call.arguments, converted)
        except Exception as error:  # reported as the tool's failure (``_invoke``)
            parameters = error
        try:
            size = 0 if isinstance(parameters, Exception) or _request_surely_fits(tool, parameters) else request_size(tool, parameters)
        except Exception:  # a value nested too deep to measure: the call reports it as it runs
            size = 0
        if size > TOOL_REQUEST_BYTES:  # a value fixed in the node, or many large arguments together
            problem = prompts.REQUEST_TOO_LARGE_FOR_TOOL.format(name=call.name, size=size, limit=TOOL_REQUEST_BYTES)
            return ToolResult(call.id, call.name, arguments, observation=problem, error=problem,
                              elapsed=time.perf_counter() - started)
        try:  # for the log only: a slip here must neither stop the call nor lose its result
            sent = None if isinstance(parameters, Exception) else self._registry.logged_parameters(tool, parameters)
        except Exception:
            sent = None  # the log shows the model's arguments
        outcome = yield from self._invoke(tool, call, parameters, deadline)
        return ToolResult(
            call.id,
            call.name,
            arguments,
            observation=outcome.observation,
            error=outcome.error,
            full_text=outcome.full_text,
            elapsed=time.perf_counter() - started,
            sent=sent,
        )

    def _unwrapped(self, call: ToolCall) -> ToolCall:
        """``call`` with the values alone when the model wrapped them (in the tool's own name or in
        its parameter schema's shape: ``ToolRegistry.unwrapped_arguments``); the call as it is
        otherwise. The log and the model keep the arguments as the model wrote them."""
        tool = self._registry.get(call.name)
        values = self._registry.unwrapped_arguments(tool, call.arguments) if tool is not None else None
        return call if values is None else replace(call, arguments=values)

    def _checked(self, call: ToolCall | InvalidToolCall) -> tuple[str | None, Converted | None]:
        """Why the call cannot run, in the model's terms (None if it can), and the values of the
        model's arguments converted to their declared types to check them
        (``ToolRegistry.checked_arguments``: converted once, sent as checked)."""
        if isinstance(call, InvalidToolCall):
            return prompts.INVALID_ARGUMENTS.format(name=call.name, error=call.error), None
        tool = self._registry.get(call.name)
        if tool is None:
            available = ", ".join(self._registry.names()) or prompts.NO_TOOLS_AVAILABLE
            return prompts.UNKNOWN_TOOL.format(name=call.name, available=available), None
        if too_deep(call.arguments, MAX_DEPTH):  # read from a reply as an object, not through decode_arguments
            return prompts.INVALID_ARGUMENTS.format(name=call.name, error=prompts.MSG_TOO_DEEP.format(limit=MAX_DEPTH)), None
        if _too_large(call.arguments):
            error = prompts.MSG_ARGUMENTS_TOO_LARGE.format(size=encoded_size(call.arguments), limit=TOOL_ARGUMENTS_BYTES)
            return prompts.INVALID_ARGUMENTS.format(name=call.name, error=error), None
        invalid, converted = self._registry.checked_arguments(tool, call.arguments)
        if not invalid and (secret := self._registry.secret_arguments(call.arguments, tool)):
            invalid = prompts.MSG_SECRET_IN_ARGUMENTS.format(names=", ".join(map(repr, secret)))
        if invalid:
            return prompts.INVALID_ARGUMENTS.format(name=call.name, error=invalid), None
        return None, converted

    def _invoke(
        self, tool: ToolEntity, call: ToolCall, parameters: dict[str, Any] | Exception, deadline: float | None
    ) -> Generator[AgentInvokeMessage, None, ToolOutcome]:
        """The tool's stream, invoked with ``parameters`` (``ToolRegistry.invocation_parameters``;
        the error they could not be worked out with fails the call), read into an observation
        (files and links forwarded as they come), within the runner's timeout, and before
        ``deadline`` (at least ``LEAST_CALL_SECONDS``)."""
        collector = ObservationCollector(
            call.name,
            max_tokens=self._observation_tokens,
            secrets=self._registry.secret_forms(),
            separate_texts=tool.provider_type == ToolProviderType.MCP,  # a text message per content block
        )
        now = time.monotonic()
        end = now + self._timeout
        if deadline is not None:
            end = max(min(end, deadline), now + LEAST_CALL_SECONDS)
        seconds = end - now

        def expired() -> ToolTimeoutError:
            return ToolTimeoutError(f"timed out after {round(seconds, 1):g} seconds")

        stream = None
        try:
            if isinstance(parameters, Exception):
                raise parameters
            stream = invoke_tool_raw(self._session, tool, parameters)
            # A timer is armed only while waiting for the tool's next message, never while a
            # forwarded message is with the consumer (the SDK's writer, in this same greenlet
            # for a lone call): going off there, it would end the run instead of the call.
            while (message := next_within(stream, end - time.monotonic(), expired)) is not END:
                yield from collector.add(message)
                give_way()  # tens of thousands of messages that are all there already
        except Exception as error:  # the tool's failure (or its time running out) is the model's observation
            collector.fail(error)
        finally:
            if stream is not None:
                stream.close()
        return collector.finish()
