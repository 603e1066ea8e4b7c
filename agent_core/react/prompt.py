"""The ReAct text format: prompts for chat and completion models, the
scratchpad of this run, and turning a parsed action into a tool call.

Chat models get: system (instruction, knowledge, tools, format), memory,
the query, then this run's scratchpad as an assistant message followed by a
short user nudge (some providers reject a conversation ending on the
assistant). Completion models get one text, as Dify's core CoT completion
runner builds it: instruction, tools and format, earlier turns as
Question/Final Answer, the current Question, the scratchpad, ending in
``Thought:``.
"""

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    PromptMessage,
    PromptMessageRole,
    PromptMessageTool,
    TextPromptMessageContent,
    UserPromptMessage,
)

from agent_core import prompts
from agent_core.answer_schema import schema_text
from agent_core.budget import in_pieces, pieces_tokens
from agent_core.fairness import give_way
from agent_core.json_args import dumps_arguments
from agent_core.memo import per_object
from agent_core.messages import query_message
from agent_core.own_text import OwnText, filled, head, joined, note_own, own, own_spans
from agent_core.round_cap import after_observation_note, not_run_note
from agent_core.run_state import Round, RunState
from agent_core.text_calls import schema_properties
from agent_core.tool_calls import ToolCall
from agent_core.tool_schema import schema_json
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from agent_core.unvalidated import built, checks_nothing

STOP_WORD = "Observation"
COMPLETION_STOP_WORD = "\nQuestion:"
_NO_STOP_MODELS = ("o1", "o3", "o4", "gpt-5")
"""OpenAI reasoning models reject the ``stop`` parameter."""


def tools_block(tools: Sequence[PromptMessageTool]) -> str:
    """The tool list and the format rules, for the system prompt."""
    if not tools:
        return own(prompts.REACT_NO_TOOLS)
    lines = [
        filled(
            prompts.REACT_TOOL_LINE,
            name=tool.name,
            description=tool.description.strip() or tool.name,
            schema=schema_json(tool.parameters),
        )
        for tool in tools
    ]
    names = ", ".join(tool.name for tool in tools)
    return joined("\n", [own(prompts.REACT_TOOLS_HEADER), *lines, "", filled(prompts.REACT_FORMAT, names=names)])


def completion_tools_block(tools: Sequence[PromptMessageTool]) -> str:
    """The format and the tools for a completion model, as blocks separated by blank lines:
    intro, answer format, a worked example, the tool list, then one concrete call per tool
    (``example_call``). With no tools: intro and answer format only."""
    answer = own(prompts.REACT_COMPLETION_ANSWER_FORMAT)
    if not tools:
        return joined("\n\n", [own(prompts.REACT_COMPLETION_INTRO), answer])
    lines = [
        filled(prompts.REACT_COMPLETION_TOOL_LINE, name=tool.name, description=_one_line(tool.description) or tool.name)
        for tool in tools
    ]
    calls = [example_call(tool) for tool in tools]
    return joined("\n\n", [
        own(prompts.REACT_COMPLETION_INTRO),
        answer,
        own(prompts.REACT_COMPLETION_WORKED),
        joined("\n", [own(prompts.REACT_COMPLETION_TOOLS_HEADER), *lines]),
        own(prompts.REACT_COMPLETION_CALLS_HEADER),
        *calls,
    ])


def example_call(tool: PromptMessageTool) -> str:
    """A question the tool answers and the call that asks it, e.g. for a calculator::

        Question: Evaluate an arithmetic expression exactly: (649 * 0.85) * 1.2
        Thought: I will use calculator.
        Action: calculator
        Action Input: {"expression": "(649 * 0.85) * 1.2"}

    The question is the tool's purpose (``tool_purpose``) and the argument values
    (``example_arguments``)."""
    arguments = example_arguments(tool)
    purpose = tool_purpose(tool)
    return filled(
        prompts.REACT_COMPLETION_CALL,
        task=purpose[:1].upper() + purpose[1:],
        values=" ".join(str(value) for value in arguments.values()),
        name=tool.name,
        arguments=_json(arguments),
    )


_EXAMPLE = re.compile(r"\be\.g\.,?\s*+(.+?)(?:(?<!\s)\s+or\s+|;|\.(?:\s|$)|$)")


def example_arguments(tool: PromptMessageTool) -> dict[str, Any]:
    """Arguments for the tool's example call, from its schema: each required parameter, and each
    optional one whose description gives an example ("e.g. Europe/Paris"); the value is that
    example, else the first allowed value, else a neutral value of the parameter's type."""
    properties = schema_properties(tool)
    required = tool.parameters.get("required") if isinstance(tool.parameters, Mapping) else None
    required = set(required) if isinstance(required, list) else set()
    arguments: dict[str, Any] = {}
    for name, schema in properties.items():
        schema = schema if isinstance(schema, Mapping) else {}
        example = _EXAMPLE.search(str(schema.get("description") or ""))
        if name not in required and example is None:
            continue
        arguments[name] = _example_value(schema, _balanced(example.group(1).strip()) if example else None)
    return arguments


def _balanced(text: str) -> str:
    """An example cut from "(e.g. km) ..." ends before the parenthesis that is not its own."""
    depth = 0
    for position, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return text[:position].rstrip()
    return text


def _example_value(schema: Mapping[str, Any], example: str | None) -> Any:
    kind = schema.get("type")
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if kind in ("number", "integer"):
        try:
            number = float(example) if example is not None else 1.0
        except ValueError:
            number = 1.0
        if not math.isfinite(number):  # "e.g. inf" is no JSON number
            number = 1.0
        return int(number) if number.is_integer() else number
    if kind == "boolean":
        return True
    if example is not None:
        return example
    description = _one_line(str(schema.get("description") or "")).rstrip(".")
    return description[:1].lower() + description[1:] if description else "..."


def tool_purpose(tool: PromptMessageTool) -> str:
    """What the tool is for, in a few words: its description's first sentence without
    parentheses and end punctuation, first letter lower-cased unless it starts an acronym
    ("Get the time (UTC)." -> "get the time"; empty description -> "use <name>")."""
    first = re.split(r"(?<=[.!?])\s", _one_line(tool.description), maxsplit=1)[0].rstrip(".!? ")
    first = " ".join(re.sub(r"(?!(?<=\s)\s)\s*+\([^()]*\)", "", first).split())
    if not first:
        return f"use {tool.name}"
    return first[0].lower() + first[1:] if first[1:2].islower() or len(first) == 1 else first


def _one_line(text: str) -> str:
    return " ".join((text or "").split())


def _json(value: Any) -> str:
    return dumps_arguments(value)


def stop_words(model_name: str, mode: str | None = None) -> list[str]:
    """``Observation`` as a stop word, except for models known to reject ``stop``; for a
    completion model (``mode`` "completion") also a new ``Question:`` line, where a base model
    goes on after its final answer by inventing the next question of the document."""
    name = model_name.lower()
    if name.startswith(_NO_STOP_MODELS):
        return []
    return [STOP_WORD, COMPLETION_STOP_WORD] if mode == "completion" else [STOP_WORD]


def _action_text(call: ToolCall, completion: bool = False) -> str:
    """An action as the scratchpad replays it; the labels and the JSON blob's keys are the
    plugin's own words (``own_text``), the tool's name and arguments the model's."""
    if completion:  # the format the completion prompt teaches
        return filled(prompts.REACT_COMPLETION_ACTION, name=call.name, arguments=_json(call.arguments))
    # dumps_arguments({"action": name, "action_input": arguments}), its keys marked as the plugin's
    return filled(_ACTION_BLOB, name=dumps_arguments(call.name), arguments=dumps_arguments(call.arguments))


_ACTION_BLOB = 'Action:\n```json\n{{"action": {name}, "action_input": {arguments}}}\n```'
"""The chat scratchpad's action: ``dumps_arguments`` of the blob, written by its parts."""


def scratchpad(run: RunState, *, completion: bool = False) -> str:
    """This run so far as Thought / Action / Observation text ('' before the first round);
    actions as the chat format's JSON blob, or as ``Action:`` / ``Action Input:`` lines for
    ``completion`` models (what their prompt shows), the rounds' texts that are not empty a
    line apart. Each round's text is rendered once (``RunState.rendered``), and the text of the
    rounds before is kept: a round adds its own text to it while the rounds shortened to fit
    the window stay the same (else it is joined anew)."""
    return _scratchpad(run, completion)[0]


def _scratchpad(run: RunState, completion: bool) -> tuple[str, tuple[str, ...], int]:
    """``scratchpad``, the pieces it is joined from (each round's text that is not empty and a
    line break between two) and their tokens as the prompt budget counts them piece by piece
    (``budget.pieces_tokens``), kept as the pieces are added (``budget.in_pieces``)."""
    key = ("react-pad", completion)
    rounds, shortened, text, pieces, tokens = run.rendered.get(key, (0, -1, "", (), 0))
    if shortened != run.rounds_shortened or rounds > len(run.rounds):
        rounds, text, pieces, tokens = 0, "", (), 0
    added: list[str] = []
    for round_ in run.rounds[rounds:]:
        round_key = ("react", round_.index, run.is_shortened(round_), completion)
        if round_key not in run.rendered:
            run.rendered[round_key] = joined("\n", _round_parts(run, round_, completion))
        if round_text := run.rendered[round_key]:
            added += [_NEW_LINE, round_text] if added or text else [round_text]
    if added:
        tokens += pieces_tokens(added, after=pieces[-1] if pieces else "")
        text, pieces = text + "".join(added), (*pieces, *added)
    run.rendered[key] = (len(run.rounds), run.rounds_shortened, text, pieces, tokens)
    return text, pieces, tokens


_NEW_LINE = own("\n")


def _continue_message(run: RunState) -> UserPromptMessage:
    """The user message after the scratchpad (``prompts.REACT_CONTINUE``; when the round asks for
    the rest of a cut answer, ``prompts.CONTINUE_CUT_ANSWER``, so the last thing the model reads
    does not ask for a new Thought; once the run must answer, ``prompts.REACT_CONTINUE_ANSWER_NOW``,
    so it does not invite the Action the system prompt's limit note forbids), one object per run
    and kind: measured and dumped once (``agent_core.memo``)."""
    if _continues_answer(run):
        text = prompts.CONTINUE_CUT_ANSWER
    else:
        text = prompts.REACT_CONTINUE_ANSWER_NOW if run.limit_reached else prompts.REACT_CONTINUE
    key = ("react-continue", text)
    if key not in run.rendered:
        run.rendered[key] = note_own(UserPromptMessage(content=text), own(text))
    return run.rendered[key]


def _round_parts(run: RunState, round_: Round, completion: bool) -> list[str]:
    """One finished round as scratchpad lines."""
    parts: list[str] = []
    thought = round_.turn.thought.strip()
    decision = round_.turn.decision
    if isinstance(decision, ToolCalls):
        calls = {call.id: call for call in decision.calls}
        invalid = {call.id: call for call in decision.invalid}
        if thought or not completion:  # a completion model copies an empty "Thought:" line
            parts.append(filled("Thought: {thought}", thought=thought) if thought else own("Thought:"))
        for result in round_.results:
            if result.call_id in calls:
                parts.append(_action_text(calls[result.call_id], completion))
            elif result.call_id in invalid:  # as written: the observation says what is wrong
                bad = invalid[result.call_id]
                parts.append(filled(prompts.REACT_COMPLETION_ACTION, name=bad.name, arguments=bad.raw_arguments))
            parts.append(filled(_OBSERVATION, text=run.observation(round_, result)))
        if round_.not_run and parts:  # the actions beyond the cap: counted once, in the last observation
            parts[-1] = joined("\n\n", [parts[-1], not_run_note(round_.not_run)])
        if round_.turn.calls_after_answer and parts:  # written after a made-up Observation: named, not run
            parts[-1] = joined("\n\n", [parts[-1], after_observation_note(round_.turn.calls_after_answer)])
    elif isinstance(decision, FinalAnswer) and round_.turn.cut:  # the model is asked for the rest
        answer = filled("Final Answer: {text}", text=decision.text)
        parts.append(joined("", [filled("Thought: {thought}\n", thought=thought), answer]) if thought else answer)
        parts.append(own("Observation: " + prompts.CONTINUE_CUT_ANSWER))
    elif isinstance(decision, ParseFailure):
        if round_.turn.raw.strip():
            parts.append(round_.turn.raw.strip())
        parts.append(filled(_OBSERVATION, text=filled(prompts.REACT_FORMAT_PROBLEM, problem=decision.problem)))
    return parts


_OBSERVATION = "Observation: {text}"
"""An observation in the scratchpad: the label is the plugin's, the text the tool's (``own_text``)."""


def chat_prompt(run: RunState) -> list[PromptMessage]:
    """Prompt messages for a chat model."""
    tools = run.render_tools(tools_block)
    history = plain_history(run.history())
    query = run.query()
    if history and isinstance(history[-1], UserPromptMessage):  # the last turn went unanswered
        query = _joined(history.pop(), query)
    messages: list[PromptMessage] = [*run.system(tools, answer_note(run), run.limit_note()), *history, query]
    pad, pieces, tokens = _scratchpad(run, False)
    if pad:  # a new message each round: counted by its rounds' texts, each counted once
        messages += [in_pieces(assistant_text(pad), pieces, tokens), _continue_message(run)]
    return messages


_ASSISTANT_FIELDS = ("role", "content", "name", "tool_calls", "opaque_body")

_ASSISTANT_UNVALIDATED = checks_nothing(AssistantPromptMessage, _ASSISTANT_FIELDS, frozenset({"transform_content"}))
"""Whether ``assistant_text`` builds its message without validation (dify_plugin 0.10.2's model:
its one validator, ``transform_content``, returns a string content as it is)."""


def assistant_text(text: str) -> AssistantPromptMessage:
    """``AssistantPromptMessage(content=text)``, built without pydantic's validation when
    ``_ASSISTANT_UNVALIDATED`` (the scratchpad's message is new every round: validating a string
    made here, and deep-copying the empty ``tool_calls`` default, cost some 12 calls); the same
    fields, fields set and dump."""
    if _ASSISTANT_UNVALIDATED and type(text) is str:
        values = {"role": PromptMessageRole.ASSISTANT, "content": text, "name": None, "tool_calls": [], "opaque_body": None}
        return built(AssistantPromptMessage, values, {"content"})
    return AssistantPromptMessage(content=text)


def completion_prompt(run: RunState) -> list[PromptMessage]:
    """One user message holding the whole completion prompt, ending in ``Thought:`` (in
    ``Final Answer:`` when it asks for the rest of a cut answer: ``_continues_answer``): the head,
    the earlier turns and the current question with the scratchpad, a blank line apart. The
    message is counted by its pieces (``budget.in_pieces``): the head, each turn, the question
    and each round's text are counted once in a run, not the whole text every round."""
    params = run.params
    head = completion_head(run, run.render_tools(completion_tools_block), answer_note(run))
    pieces = [head]
    for message in plain_history(run.history()):
        if turn := _history_line(message):
            pieces += (_BLANK_LINE, turn)
    query = query_message(params, images_as_content=False).content
    question = filled(prompts.REACT_COMPLETION_QUESTION, text=query)
    pad = _scratchpad(run, True)[1]
    pieces += (_BLANK_LINE, question, _NEW_LINE, *pad) if pad else (_BLANK_LINE, question)
    pieces = rstripped(pieces)
    pieces.append(own("\nFinal Answer:" if _continues_answer(run) else "\nThought:"))
    return [in_pieces(UserPromptMessage(content="".join(pieces)), pieces)]


_BLANK_LINE = own("\n\n")


def _continues_answer(run: RunState) -> bool:
    """Whether this round asks for the rest of an answer the output limit cut: the completion
    prompt then ends with ``Final Answer:``, so the model writes that rest where the reader takes
    it (``read_react_turn``'s ``continues_answer``), not a Thought."""
    last = run.rounds[-1].turn if run.rounds else None
    return last is not None and last.cut and isinstance(last.decision, FinalAnswer)


def rstripped(pieces: Sequence[str]) -> list[str]:
    """``pieces`` such that their join is the join of ``pieces`` with its trailing whitespace
    removed (``str.rstrip``): trailing pieces of whitespace only dropped, the last one left
    stripped."""
    kept = list(pieces)
    while kept and not kept[-1].rstrip():
        kept.pop()
    if kept:
        kept[-1] = head(kept[-1], len(kept[-1].rstrip()))  # its own words still marked
    return kept


def completion_head(run: RunState, block: str, note: str = "") -> str:
    """The system text of a completion prompt (instruction, knowledge, ``block``, ``note``, the
    limit note), its parts separated by blank lines."""
    return joined("\n\n", [
        OwnText(m.content, own_spans(m)) for m in run.system(block, note, run.limit_note()) if isinstance(m.content, str)
    ])


def answer_note(run: RunState, template: str = prompts.REACT_ANSWER_SCHEMA) -> str:
    """The prompt's note asking for the final answer in the user's JSON schema
    (``StrategyParams.answer_schema``): ``template`` (a ``{schema}`` placeholder; text steps'
    by default, ``prompts.JSON_STEP_ANSWER_SCHEMA`` for JSON steps) filled; ``''`` when none is
    set. Built once per run and template."""
    schema = run.params.answer_schema
    if not schema:
        return ""
    key = f"answer-note:{template}"
    if key not in run.rendered:
        run.rendered[key] = filled(template, schema=schema_text(schema))
    return run.rendered[key]


def plain_history(history: Sequence[PromptMessage]) -> list[PromptMessage]:
    """Memory without tool messages: a ReAct prompt has no native tool turns. A turn left
    with no answer (its run failed, or only called tools) would put two user messages in a
    row, which chat templates that insist on alternating roles refuse: they are joined. So are
    two assistant messages in a row (a tool round's text, such as "Let me check.", then the
    answer: Hunyuan refuses an assistant message after an assistant message); an assistant
    message of blank text (a model's newline before its calls) is left out."""
    kept: list[PromptMessage] = []
    for message in history:
        give_way()  # tens of thousands of messages, in each of the builds that trim the prompt
        if message.role.value == "tool":
            continue
        if isinstance(message, AssistantPromptMessage):
            if not message.content or (isinstance(message.content, str) and not message.content.strip()):
                continue
            message = _text_only(message)
            if kept and isinstance(kept[-1], AssistantPromptMessage):
                message = _joined(kept.pop(), message)
        if kept and isinstance(message, UserPromptMessage) and isinstance(kept[-1], UserPromptMessage):
            message = _joined(kept.pop(), message)
        kept.append(message)
    return kept


@per_object
def _text_only(message: AssistantPromptMessage) -> AssistantPromptMessage:
    """An assistant message of the memory without its tool calls, made once per message: every
    build of the prompt (several when it is trimmed to fit) reuses it, and what is measured of it
    (``memo``)."""
    return AssistantPromptMessage(content=message.content)


def _joined[M: (UserPromptMessage, AssistantPromptMessage)](first: M, second: M) -> M:
    """Two memory messages of one role as one (two user messages, or two answers): texts a blank
    line apart, content parts one after the other."""
    if isinstance(first.content, str) and isinstance(second.content, str):
        return type(first)(content=f"{first.content}\n\n{second.content}")
    parts = []
    for content in (first.content, second.content):
        parts += content if isinstance(content, list) else [TextPromptMessageContent(data=content or "")]
    return type(first)(content=parts)


@per_object
def _history_line(message: PromptMessage) -> str:
    """A memory message as a completion prompt's line (``Question:``, ``Final Answer:``; '' for
    another role), once per message object (the same text object every round)."""
    text = message.get_text_content() if hasattr(message, "get_text_content") else str(message.content or "")
    if message.role.value == "user":
        return filled(prompts.REACT_COMPLETION_QUESTION, text=text)
    if message.role.value == "assistant":
        return filled(prompts.REACT_COMPLETION_ANSWER, text=text)
    return ""
