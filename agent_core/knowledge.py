"""Knowledge-retrieval context: grounding text for the prompt and citations for Dify.

Items come from a Knowledge Retrieval node as ``{content, title, metadata}``;
``metadata`` holds Dify's retrieval fields (``position``, ``dataset_id``,
``dataset_name``, ``document_id``, ``document_name``, ``segment_id``,
``score``, ``segment_hit_count``, ``segment_word_count``,
``segment_position``, ``segment_index_node_hash``, ``doc_metadata``…), as
built by Dify's ``KnowledgeRetrievalNode`` (which also sets ``_source:
"knowledge"``). Every item with content grounds the prompt; only retrieval
items become citations, as in Dify's LLM node (``_convert_to_original_
retriever_resource``): plain text or objects from other nodes have no
dataset or document to cite.
"""

import ast
import json
from collections.abc import Mapping, Sequence
from typing import Any

from dify_plugin.entities.invoke_message import InvokeMessage

from agent_core import prompts
from agent_core.json_args import MAX_DEPTH, too_deep
from agent_core.line_budget import encoded_size, fit
from agent_core.redaction import redacted_texts
from agent_core.tokens import estimate_tokens, truncate_to_tokens

RetrieverResource = InvokeMessage.RetrieverResourceMessage.RetrieverResource

# RetrieverResource field <- metadata key (Dify names some of them differently)
_METADATA_KEYS = {
    "position": "position",
    "dataset_id": "dataset_id",
    "dataset_name": "dataset_name",
    "document_id": "document_id",
    "document_name": "document_name",
    "data_source_type": "data_source_type",
    "segment_id": "segment_id",
    "retriever_from": "retriever_from",
    "score": "score",
    "hit_count": "segment_hit_count",
    "word_count": "segment_word_count",
    "segment_position": "segment_position",
    "index_node_hash": "segment_index_node_hash",
    "page": "page",
    "doc_metadata": "doc_metadata",
}


RESULTS_TEXT_MAX_CHARS = 2 * 1024 * 1024
"""Longest context text read back as retrieval results (`read_context`); longer text grounds
the prompt as it is (Python's literal reader takes memory in proportion to what it reads)."""


def _literal_unescaped(text: str) -> Any:
    """``text`` as a Python literal whose ``\\n``, ``\\r`` and ``\\t`` escapes were turned into
    the characters by a JSON reading (Dify's Agent node reads the rendered template as a JSON
    string): ``str()`` of a list holds none of them raw, so each raw one was an escape."""
    return ast.literal_eval(text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"))


def _results_in_text(text: str) -> Any:
    """The list or object that ``text`` spells, as JSON or as a Python literal (how Dify renders
    an array[object] variable into a text field: ``str(list)``), also inside the JSON quotes
    Dify's Agent node leaves around it when the literal is not valid JSON text; None when it
    spells neither, is over ``RESULTS_TEXT_MAX_CHARS`` or nests deeper than ``json_args.MAX_DEPTH``."""
    text = text.strip()
    if len(text) > RESULTS_TEXT_MAX_CHARS:
        return None
    if len(text) > 1 and text[0] == text[-1] == '"':
        text = text[1:-1].strip()
    if not text or text[0] + text[-1] not in ("[]", "{}"):
        return None
    for read in (json.loads, ast.literal_eval, _literal_unescaped):
        try:
            value = read(text)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            continue
        if isinstance(value, list | dict) and not too_deep(value, MAX_DEPTH):
            return value
    return None


def read_context(value: Any) -> list[dict[str, Any]]:
    """The ``context`` parameter as items ``{content, title?, metadata?}``.

    Shapes Dify's Agent node sends: a list of Knowledge Retrieval results (a variable picked
    as it is), one result (a dict), plain text, the text of a list or dict of results (a variable
    written into the field as a template: JSON, or Python's ``str()`` of the list, which is what
    Dify renders an array of objects as), or None/"" (nothing). Text that spells results is read
    as them, so they are cited; other text is one item. Items that are no dict become
    ``{"content": str(item)}``; empty items (None, "", [], {}) are left out."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = _results_in_text(value) or value
    items = value if isinstance(value, list) else [value]
    return [_item(item) for item in items if item]


def _item(item: Any) -> dict[str, Any]:
    """One context item: a dict with ``content`` as it is; any other dict (an object from a
    node that is not Knowledge Retrieval) as its JSON text, so it still grounds the prompt;
    anything else as its text."""
    if isinstance(item, dict):
        return item if "content" in item else {"content": json.dumps(item, ensure_ascii=False, default=str)}
    return {"content": str(item)}


def _metadata(item: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = item.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def context_prompt(items: Sequence[Mapping[str, Any]]) -> str:
    """The grounding block for the system prompt ('' when there is no context)."""
    sources = []
    for number, item in enumerate(items, start=1):
        content = str(item.get("content") or "").strip()
        if not content:
            continue
        title = str(item.get("title") or _metadata(item).get("document_name") or f"Source {number}")
        sources.append(prompts.KNOWLEDGE_SOURCE.format(position=number, title=title, content=content))
    if not sources:
        return ""
    return prompts.KNOWLEDGE_HEADER + "\n\n" + "\n\n".join(sources)


def cut_context(block: str, max_tokens: int | None = None, max_chars: int | None = None) -> tuple[str, int]:
    """``block`` (a `context_prompt`) within ``max_tokens`` (as ``tokens.estimate_tokens``
    counts) and ``max_chars``, note included, and the characters of it left out: ``(block, 0)``
    when it fits (or no limit is given), else its head (the sources come best-ranked first, as
    Dify's Knowledge Retrieval node orders them) and ``prompts.KNOWLEDGE_CUT`` saying how much was
    left out; ``("", len(block))`` when not even the note fits."""
    if (max_chars is None or len(block) <= max_chars) and (max_tokens is None or estimate_tokens(block) <= max_tokens):
        return block, 0
    note = prompts.KNOWLEDGE_CUT.format(chars=len(block))  # as long as any note it will carry
    head = block
    if max_tokens is not None:
        head, _ = truncate_to_tokens(block, max_tokens - estimate_tokens(note), marker="", tail_share=0.0)
    if max_chars is not None:
        head = head[: max(max_chars - len(note), 0)]
    head = head.rstrip()
    return (head + prompts.KNOWLEDGE_CUT.format(chars=len(block) - len(head)) if head else ""), len(block) - len(head)


def _is_retrieval_item(meta: Mapping[str, Any]) -> bool:
    """Whether an item came from knowledge retrieval: ``_source`` says so, or (without
    ``_source``) it names a dataset, document or segment."""
    if "_source" in meta:
        return meta["_source"] == "knowledge"
    return any(meta.get(key) for key in ("dataset_id", "document_id", "segment_id"))


def retriever_resources(items: Sequence[Mapping[str, Any]]) -> list[RetrieverResource]:
    """Citations for Dify, one per retrieval item with content, positions numbered from 1 when missing."""
    resources = []
    for number, item in enumerate(items, start=1):
        meta = _metadata(item)
        if not item.get("content") or not _is_retrieval_item(meta):
            continue
        fields = {field: meta.get(key) for field, key in _METADATA_KEYS.items() if meta.get(key) is not None}
        if "data_source_type" not in fields and meta.get("document_data_source_type") is not None:
            fields["data_source_type"] = meta["document_data_source_type"]  # the Knowledge Retrieval node's name
        fields.setdefault("position", number)
        fields.setdefault("document_name", item.get("title"))
        fields["content"] = str(item["content"])
        try:
            resources.append(RetrieverResource.model_validate(fields))
        except ValueError:
            resources.append(RetrieverResource(position=number, content=str(item["content"])))
    return resources


def redacted_resources(resources: Sequence[RetrieverResource], redact: Any) -> list[RetrieverResource]:
    """``resources`` with ``redact`` (``text -> text``, e.g. ``redaction.secret_forms(...).redact``)
    applied to every text of each (content, document name, ...); each resource that holds nothing
    to hide is the same object. Done before the citations are cut to fit their line
    (``fitting_resources``): ``[REDACTED]`` may be longer than what it hides, so a line measured
    before it could grow past the daemon's limit."""
    out = []
    for resource in resources:
        dumped = resource.model_dump()
        data = redacted_texts(dumped, redact)
        out.append(resource if data == dumped else RetrieverResource.model_validate(data))
    return out


CITATIONS_MAX_BYTES = 3 * 1024 * 1024
"""Bytes the citations of one run may take as JSON: they go to Dify in one line with the
context's text (at most ``line_budget.LOG_DATA_BYTES``), under the daemon's 5 MiB."""


def fitting_resources(resources: Sequence[RetrieverResource], limit: int = CITATIONS_MAX_BYTES) -> list[RetrieverResource]:
    """``resources`` within ``limit`` bytes of JSON: as they are when they fit; else each
    content cut to an equal share (``line_budget.fit``, with a note), and the citations that
    still do not fit left out from the end (the first are the best ranked)."""
    sizes = [encoded_size(resource.model_dump(mode="json")) + 1 for resource in resources]  # and its comma
    if sum(sizes) <= limit:
        return list(resources)
    share = max(limit // max(len(resources), 1), 1024)
    kept: list[RetrieverResource] = []
    used = 0
    for resource, size in zip(resources, sizes, strict=True):
        if size > share:
            resource = resource.model_copy(update={"content": fit(resource.content or "", share // 2)})
            size = encoded_size(resource.model_dump(mode="json")) + 1
        if used + size > limit:
            break
        kept.append(resource)
        used += size
    return kept
