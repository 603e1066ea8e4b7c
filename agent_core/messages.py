"""Prompt pieces every strategy shares: the system text, the user's query with
its files, and the conversation history from Dify's memory.

Pure functions of ``StrategyParams``; no I/O.
"""

import base64
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    DocumentPromptMessageContent,
    ImagePromptMessageContent,
    PromptMessage,
    PromptMessageContent,
    PromptMessageContentUnionTypes,
    SystemPromptMessage,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)

from agent_core.fairness import give_way
from agent_core.file_fetch import provider_can_fetch, url_name
from agent_core.knowledge import context_prompt, cut_context
from agent_core.own_text import joined, note_own
from agent_core.params import StrategyParams
from agent_core.prompts import EMPTY_QUERY, EMPTY_TOOL_RESULT
from agent_core.think import visible_text
from agent_core.tool_calls import fresh_call_ids, is_strict_call_id, wants_strict_call_ids

CONTEXT_PLACEHOLDER = "{{#context#}}"
"""Where Dify's LLM node puts the knowledge context in a prompt; a user who writes it in the
Agent node's instruction gets the context there (Dify leaves it as written for a strategy)."""


def system_text(params: StrategyParams, *notes: str, knowledge_limit: tuple[int | None, int | None] = (None, None)) -> str:
    """Instruction, then knowledge context (or the context in the instruction's
    ``{{#context#}}``), then any loop notes, separated by blank lines. ``knowledge_limit``:
    ``(tokens, characters)`` the knowledge context may take (``knowledge.cut_context``)."""
    instruction = params.instruction.strip()
    context, _ = cut_context(context_prompt(params.context), *knowledge_limit)
    if CONTEXT_PLACEHOLDER in instruction:
        instruction, context = instruction.replace(CONTEXT_PLACEHOLDER, context).strip(), ""
    # the notes' own words (``own_text``) stay marked: the instruction and the context are the user's
    return joined("\n\n", [part for part in (instruction, context, *notes) if part])


def system_message(
    params: StrategyParams, *notes: str, knowledge_limit: tuple[int | None, int | None] = (None, None)
) -> list[PromptMessage]:
    """The system message as a list (empty when there is nothing to say); ``knowledge_limit``
    as `system_text` takes it."""
    text = system_text(params, *notes, knowledge_limit=knowledge_limit)
    return [note_own(SystemPromptMessage(content=text), text)] if text else []


def _file_field(file: Any, name: str) -> Any:
    if isinstance(file, Mapping):
        return file.get(name)
    return getattr(file, name, None)


def file_type(file: Any) -> str:
    """A Dify file's or content part's kind (``image``, ``document``…; '' when unknown)."""
    kind = _file_field(file, "type")
    return str(getattr(kind, "value", kind) or "")


FEATURE_FOR_KIND = {"image": "vision", "document": "document", "video": "video", "audio": "audio"}
"""File kind (``File.type``, ``PromptMessageContentType``) -> the model feature that lets a model
take it as content (SDK ``entities/model/schema.py`` ``ModelFeature``; Dify sends these four in
the model-selector's ``entity.features``: protocol §5)."""


def takes_as_content(kind: str, features: Collection[str] | None) -> bool:
    """Whether a model with ``features`` can be sent a file of ``kind`` as content.

    ``features`` None means unknown (Dify sent no model ``entity``): every kind is taken, which
    is what the model-selector's memory carried before. Text is always taken."""
    if features is None or kind == "text":
        return True
    feature = FEATURE_FOR_KIND.get(kind)
    return feature is not None and feature in features


def describe_file(file: Any) -> str:
    """A one-line mention of a file for the model: ``[Attached image: cat.png (image/png)]``.

    ``file``: a Dify file (SDK ``File`` or its dict) or a prompt content part (image, document,
    video, audio). Named by its filename, else the last segment of its URL's path: never the
    address itself (Dify's file addresses are signed and expire within minutes)."""
    name = _file_field(file, "filename") or url_name(_file_field(file, "url")) or "unnamed file"
    mime = _file_field(file, "mime_type") or "unknown type"
    return f"[Attached {file_type(file) or 'file'}: {name} ({mime})]"


def _image_content(file: Any, blobs: Mapping[str, bytes]) -> ImagePromptMessageContent:
    """An image as its address (a provider fetches it) or as base64 data (``blobs``: the plugin
    fetched it; ``file_fetch``), in high detail as Dify's LLM node sends it by default."""
    url = str(_file_field(file, "url") or "")
    blob = blobs.get(url)
    return ImagePromptMessageContent(
        url="" if blob is not None else url,
        base64_data=base64.b64encode(blob).decode() if blob is not None else "",
        format=str(_file_field(file, "extension") or "").lstrip(".") or "png",
        mime_type=str(_file_field(file, "mime_type") or "image/png"),
        filename=str(_file_field(file, "filename") or ""),
        detail=ImagePromptMessageContent.DETAIL.HIGH,
    )


def image_sources(params: StrategyParams) -> list[tuple[str, int | None, str]]:
    """``(url, size, filename)`` of the current turn's images, for ``file_fetch.fetch_images``."""
    return _sources(f for f in params.files if file_type(f) == "image")


def _sources(files: Iterable[Any]) -> list[tuple[str, int | None, str]]:
    """``(url, size, filename)`` of each of ``files``, as ``file_fetch`` takes them."""
    return [(str(_file_field(f, "url") or ""), _file_field(f, "size"), str(_file_field(f, "filename") or "")) for f in files]


def _mime_type(file: Any) -> str:
    """A file's MIME type without its parameters, in lower case ('' when it has none)."""
    return str(_file_field(file, "mime_type") or "").split(";")[0].strip().lower()


DOCUMENT_MIME_TYPES = frozenset({"application/pdf"})
"""The documents a model that declares the ``document`` feature is sent as content: PDF, the one
type every such model plugin takes. Anthropic's plugin refuses any other type in the last user
message (dify-official-plugins ``models/anthropic/models/llm/llm.py``
``_create_document_content``); Gemini's skips office files (``models/gemini``); OpenAI's Chat
Completions refuses every document and its models do not declare the feature. Any other
document is mentioned by name, as before."""


def is_sendable_document(file: Any) -> bool:
    """Whether ``file`` (a Dify file or its dict) is a document of a type in
    ``DOCUMENT_MIME_TYPES`` (by its MIME type, parameters ignored)."""
    if file_type(file) in ("image", "audio", "video"):
        return False
    return _mime_type(file) in DOCUMENT_MIME_TYPES


def document_sources(params: StrategyParams) -> list[tuple[str, int | None, str]]:
    """``(url, size, filename)`` of the current turn's sendable documents
    (``is_sendable_document``), for ``file_fetch.fetch_documents``."""
    return _sources(f for f in params.files if is_sendable_document(f))


def query_images(params: StrategyParams, blobs: Mapping[str, bytes] | None = None) -> list[Any]:
    """The current turn's images a vision model can be shown, in order: those a provider can
    fetch by their address, and those the plugin fetched (``blobs``, by address). Any other
    (an internal address nobody fetched, a relative one) would make the provider refuse the
    request, so it is mentioned in text instead."""
    blobs = blobs or {}
    return [
        f
        for f in params.files
        if file_type(f) == "image" and (provider_can_fetch(url := str(_file_field(f, "url") or "")) or url in blobs)
    ]


def query_attachments(
    params: StrategyParams, *, images: bool, documents: bool = False, blobs: Mapping[str, bytes] | None = None
) -> list[Any]:
    """The current turn's files a model is sent as content, in the order the user gave them:
    images (``query_images``) when ``images`` (a vision model), and sendable documents the
    plugin fetched (``blobs``, by address) when ``documents`` (a model declaring ``document``)."""
    blobs = blobs or {}
    shown = {id(f) for f in query_images(params, blobs)} if images else set()
    return [
        f
        for f in params.files
        if id(f) in shown or (documents and is_sendable_document(f) and str(_file_field(f, "url") or "") in blobs)
    ]


def _document_content(file: Any, blobs: Mapping[str, bytes]) -> DocumentPromptMessageContent:
    """A document as base64 data (``blobs``: the plugin fetched it), as Dify's LLM node sends it
    (``file_manager.to_prompt_message_content`` with ``MULTIMODAL_SEND_FORMAT`` base64). Its MIME
    type is sent without parameters and in lower case (``is_sendable_document`` accepted it so):
    Anthropic's plugin compares it to ``application/pdf`` exactly and refuses the request
    otherwise (``_create_document_content``)."""
    url = str(_file_field(file, "url") or "")
    return DocumentPromptMessageContent(
        base64_data=base64.b64encode(blobs[url]).decode(),
        format=str(_file_field(file, "extension") or "").lstrip(".") or "pdf",
        mime_type=_mime_type(file) or "application/pdf",
        filename=str(_file_field(file, "filename") or ""),
    )


def attachment_content(file: Any, blobs: Mapping[str, bytes]) -> PromptMessageContent:
    """One of the query's attachments (``query_attachments``) as the content part the model is
    sent: an image (by address, or as data when in ``blobs``) or a document (as data)."""
    return _image_content(file, blobs) if file_type(file) == "image" else _document_content(file, blobs)


def query_message(
    params: StrategyParams,
    *,
    images_as_content: bool,
    documents_as_content: bool = False,
    files_as_text: int = 0,
    as_text: Collection[int] = (),
    blobs: Mapping[str, bytes] | None = None,
) -> UserPromptMessage:
    """The user's query with the current turn's files.

    Images become image content when ``images_as_content`` (a vision model), PDF documents the
    plugin fetched become document content when ``documents_as_content`` (a model declaring
    ``document``: `query_attachments`), except the first (oldest) ``files_as_text`` of those and
    those at the indices ``as_text`` of that list, dropped to fit the context window; every other
    file becomes a short text mention, so the model knows it exists without receiving its bytes.
    Files keep the order the user gave them, as content and as mentions. ``blobs`` holds the
    files the plugin fetched itself (``file_fetch``): they are sent as data.
    """
    if not params.files:
        return UserPromptMessage(content=params.query if params.query.strip() else EMPTY_QUERY)
    blobs = blobs or {}
    attachments = query_attachments(params, images=images_as_content, documents=documents_as_content, blobs=blobs)
    attachments = [f for i, f in enumerate(attachments) if i >= files_as_text and i not in as_text]
    shown = {id(f) for f in attachments}  # by identity: comparing file dicts is slow with hundreds of them
    mentions = [describe_file(f) for f in params.files if id(f) not in shown]
    text = "\n".join([params.query, *mentions]) if mentions else params.query
    if not attachments:
        return UserPromptMessage(content=text)
    content: list[PromptMessageContentUnionTypes] = [TextPromptMessageContent(data=text)] if text.strip() else []
    content.extend(attachment_content(f, blobs) for f in attachments)
    return UserPromptMessage(content=content)


def _part_for_model(part: PromptMessageContent, features: Collection[str] | None) -> PromptMessageContent:
    """A content part as a model with ``features`` can take it: itself, or its mention
    (`describe_file`, the mention the current query's files get) when the model lacks the
    feature for its kind."""
    kind = file_type(part)
    if takes_as_content(kind, features):
        return part
    return TextPromptMessageContent(data=describe_file(part))


def _content_for_model(message: PromptMessage, features: Collection[str] | None) -> PromptMessage:
    """``message`` with the file parts the model cannot take replaced by mentions (dify#20334:
    memory sent images to a model without vision, and the provider rejected the request). Only a
    user message carries files: in any other (an assistant's answer with the image it showed,
    which Dify's ``TokenBufferMemory`` puts there), every file part is a mention, since OpenAI
    ("assistant messages only support text content"), Anthropic and Ollama refuse them. When a
    part was replaced and only text is left, the parts become one string, a line each; a message
    other than the user's made of text parts only always does (Ollama's API takes a message's
    content as a string, and Bedrock's plugin puts an assistant's content in one text field)."""
    if not isinstance(message.content, list):
        return message
    if not isinstance(message, UserPromptMessage):
        features = ()
    # a blank text part beside a file (a turn that sent only an image): Anthropic refuses it
    parts = [
        _part_for_model(part, features)
        for part in message.content
        if not (isinstance(part, TextPromptMessageContent) and not part.data.strip() and part.opaque_body is None)
    ]
    unchanged = len(parts) == len(message.content) and all(new is old for new, old in zip(parts, message.content, strict=True))
    if unchanged and isinstance(message, UserPromptMessage):
        return message
    if all(isinstance(part, TextPromptMessageContent) and part.opaque_body is None for part in parts):
        return message.model_copy(update={"content": "\n".join(part.data for part in parts)})
    if unchanged:
        return message
    return message.model_copy(update={"content": parts})


def _has_content(message: PromptMessage) -> bool:
    if isinstance(message.content, str):
        return bool(message.content.strip())
    return bool(message.content)


def _without_reasoning(message: PromptMessage) -> PromptMessage:
    """An assistant message of an earlier turn without its reasoning: ``<think>`` blocks and
    ``opaque_body`` belong to the run that produced them (DeepSeek documents that reasoning of
    earlier user turns is dropped)."""
    if not isinstance(message, AssistantPromptMessage):
        return message
    update: dict[str, Any] = {"opaque_body": None}
    if isinstance(message.content, str) and (visible := visible_text(message.content)) != message.content:
        update["content"] = visible.strip()
    elif isinstance(message.content, list):  # each text part loses its reasoning too
        parts = [
            part.model_copy(update={"data": visible_text(part.data).strip()})
            if isinstance(part, TextPromptMessageContent) and visible_text(part.data) != part.data
            else part
            for part in message.content
        ]
        kept = [part for part in parts if not isinstance(part, TextPromptMessageContent) or part.data]
        if len(kept) != len(message.content) or any(new is not old for new, old in zip(kept, message.content, strict=True)):
            update["content"] = kept
    if len(update) == 1 and message.opaque_body is None:
        return message  # nothing to take away: no copy (memory of 30,000 answers copied each)
    return message.model_copy(update=update)


def memory_messages(params: StrategyParams) -> list[PromptMessage]:
    """The node's conversation memory (``model.history_prompt_messages``) cleaned for its model:
    `clean_history` with the features of the model-selector's ``entity``, or with features
    unknown (every file part kept) when Dify sent no entity."""
    features = params.model_features() if params.model.entity is not None else None
    history = clean_history(params.model.history_prompt_messages, features)
    if history and wants_strict_call_ids(str(params.model.provider or ""), str(params.model.model or "")):
        return with_strict_call_ids(history)
    return history


_MEMORY_ID_PREFIX = "m"
"""The prefix of the ids ``with_strict_call_ids`` makes (a run's own made ids start with ``c``)."""


def with_strict_call_ids(history: Sequence[PromptMessage]) -> list[PromptMessage]:
    """``history`` with every tool-call id not of the strictest shape (``is_strict_call_id``,
    nine letters and digits) replaced by a made one of that shape (``m00000001``, ...), the same
    in the assistant message's call and in its tool message; ids of that shape are kept, and no
    made id equals one of them. For a model behind a server that refuses any other id (Mistral:
    "Tool call id was call_Xy12ab34cd56 but must be a-z, A-Z, 0-9, with a length of 9.") whose
    memory was written while the node used another model. Only memory is renamed: a run's own
    calls go back with the ids its model gave them. The input is not mutated."""
    ids: list[str] = []
    for message in history:
        if isinstance(message, AssistantPromptMessage):
            ids.extend(call.id for call in message.tool_calls)
        elif isinstance(message, ToolPromptMessage):
            ids.append(message.tool_call_id)
    wrong = list(dict.fromkeys(call_id for call_id in ids if not is_strict_call_id(call_id)))
    if not wrong:
        return list(history)
    renamed = dict(zip(wrong, fresh_call_ids(_MEMORY_ID_PREFIX, len(wrong), ids), strict=True))
    out: list[PromptMessage] = []
    for message in history:
        if isinstance(message, AssistantPromptMessage) and any(call.id in renamed for call in message.tool_calls):
            calls = [call.model_copy(update={"id": renamed[call.id]}) if call.id in renamed else call for call in message.tool_calls]
            message = message.model_copy(update={"tool_calls": calls})
        elif isinstance(message, ToolPromptMessage) and message.tool_call_id in renamed:
            message = message.model_copy(update={"tool_call_id": renamed[message.tool_call_id]})
        out.append(message)
    return out


def clean_history(history: Sequence[PromptMessage], features: Collection[str] | None = None) -> list[PromptMessage]:
    """Conversation memory made safe to replay to any provider.

    Replaces each image, document, video or audio part the model cannot take (``features``
    lacks ``vision``, ``document``, ``video``, ``audio``) by its one-line mention, as the current
    query's files are (dify#20334); ``features`` None means unknown (no model ``entity``): every
    part is kept, as before. Drops system messages (the instruction is ours) and the reasoning of
    assistant messages (``_without_reasoning``); keeps an assistant tool
    call only when its result follows it directly (the tool messages right
    after the assistant message: what OpenAI, Anthropic and Gemini require,
    dify16760), and a result only right after its call (the first one per
    call id); drops messages with neither content nor tool calls (Anthropic
    rejects them: dify27440). A kept result with empty content gets a short
    note instead, so its call is not left unanswered, and one without a name its call's name
    (Gemini's plugin sends it as the function response's name); then lets it start with the user and
    take turns (``_taking_turns``). Order is kept; the input is not mutated.
    """
    messages = []
    for message in history:
        if not isinstance(message, SystemPromptMessage):
            messages.append(_content_for_model(_without_reasoning(message), features))
        give_way()  # tens of thousands of messages
    cleaned: list[PromptMessage] = []
    position = 0
    while position < len(messages):
        give_way()  # tens of thousands of messages: this pass held the others 140 ms on 60,000
        message = messages[position]
        position += 1
        if isinstance(message, ToolPromptMessage):
            continue  # not directly after its call: an orphan
        if not (isinstance(message, AssistantPromptMessage) and message.tool_calls):
            if _has_content(message):
                cleaned.append(message)
            continue
        results: list[ToolPromptMessage] = []
        while position < len(messages) and isinstance(messages[position], ToolPromptMessage):
            results.append(messages[position])
            position += 1
        message, answers = _answered_calls(message, results)
        if isinstance(message.content, str) and message.content and not message.content.strip():
            # a model's "\n\n" before its calls: Anthropic and Bedrock refuse a blank text block
            message = message.model_copy(update={"content": ""})
        if _has_content(message) or message.tool_calls:
            cleaned.append(message)
        cleaned.extend(answers)
    return _taking_turns(cleaned)


def _answered_calls(
    message: AssistantPromptMessage, results: list[ToolPromptMessage]
) -> tuple[AssistantPromptMessage, list[ToolPromptMessage]]:
    """``(message, answers)``: an assistant message with only the calls that ``results`` (the
    tool messages right after it) answer (``message`` itself when all are), and those results,
    the first per call id, each with a note for empty content and its call's name when it has
    none. A call with a blank id (memory some store wrote without ids) is never answered: it is
    left out with the results that carry a blank id."""
    # a call with a blank id cannot be told from another one's answer, and providers refuse it
    # (OpenAI's ids have a minimum length of 1, Anthropic's a pattern of one character or more)
    pending = {call.id: call.function.name for call in message.tool_calls if call.id.strip()}
    answers: list[ToolPromptMessage] = []
    for result in results:
        if result.tool_call_id in pending:
            update: dict[str, Any] = {} if _has_content(result) else {"content": EMPTY_TOOL_RESULT}
            if not result.name:  # Gemini refuses a function response without its name
                update["name"] = pending[result.tool_call_id]
            del pending[result.tool_call_id]
            answers.append(result.model_copy(update=update) if update else result)
    answered = {answer.tool_call_id for answer in answers}
    kept = [call for call in message.tool_calls if call.id in answered]
    if len(kept) != len(message.tool_calls):  # all answered (the usual memory): no copy
        message = message.model_copy(update={"tool_calls": kept})
    return message, answers


def _taking_turns(messages: list[PromptMessage]) -> list[PromptMessage]:
    """Memory that starts with a user message and has no user message that another user message
    follows (the query comes after memory): a leading answer lost its question when Dify pruned
    memory to its token limit (one message at a time, ``TokenBufferMemory``), and a user message
    with no answer after it is a turn whose answer failed or was empty. Bedrock and strict chat
    templates (Mistral, Gemma) refuse both shapes; the others would show the model an old
    question nobody answered.

    Two assistant messages in a row (a turn whose query was empty or a file-only query left out,
    so its answer follows the answer before it) become one: the earlier's content, then the
    later's, with the later's tool calls. Tencent Hunyuan refuses an assistant message after an
    assistant message ("user (tool) and assistant must alternate", its ``ChatCompletions`` API
    reference, ``Messages``: https://cloud.tencent.com/document/api/1729/105701); Anthropic's
    plugin merges such messages itself."""
    start = next((i for i, m in enumerate(messages) if isinstance(m, UserPromptMessage)), len(messages))
    kept = messages[start:]
    unanswered = {
        i for i, message in enumerate(kept)
        if isinstance(message, UserPromptMessage) and (i + 1 == len(kept) or isinstance(kept[i + 1], UserPromptMessage))
    }
    turns: list[PromptMessage] = []
    for i, message in enumerate(kept):
        if i in unanswered:
            continue
        if isinstance(message, AssistantPromptMessage) and turns and isinstance(turns[-1], AssistantPromptMessage):
            turns[-1] = _merged_answers(turns[-1], message)  # the earlier has no calls: results follow those
        else:
            turns.append(message)
    return turns


def _merged_answers(earlier: AssistantPromptMessage, later: AssistantPromptMessage) -> AssistantPromptMessage:
    """One assistant message for two in a row: ``earlier``'s content then ``later``'s (text
    joined by a blank line; parts kept in order when either has a list), ``later``'s tool calls."""
    if isinstance(earlier.content, str) and isinstance(later.content, str):
        content: Any = f"{earlier.content.rstrip()}\n\n{later.content.lstrip()}"
    else:
        content = [
            part
            for message in (earlier, later)
            for part in (
                [TextPromptMessageContent(data=message.content)] if isinstance(message.content, str)
                else message.content or []
            )
        ]
    return later.model_copy(update={"content": content})
