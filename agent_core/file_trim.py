"""Which of the query's files become text mentions first when the prompt must shrink.

The query's images and documents sent as content (``messages.query_attachments``) are what a
question about a picture or a file needs most, so they are trimmed last, oldest first, one a
step (``RunState.trim_to``). A file too large to fit on its own, even with everything else
trimmed (a 1.9 MB PDF of some 170,000 tokens for a window of 128,000), can never be sent: kept
in that order, it would make every file before it a mention too, images that fit included, and
memory and earlier observations would be trimmed for nothing first. So such a file is the first
step of all, before memory, as memory's own turns too large alone are dropped first
(``memory_trim``); the other files follow oldest first, only as far as needed. The model still
reads the files in the order the user gave them; only which of them are mentions changes.
"""

from collections.abc import Sequence

from dify_plugin.entities.model.message import PromptMessageContent, PromptMessageContentType

from agent_core.budget import IMAGE_TOKENS, count_tokens, document_tokens
from agent_core.line_budget import encoded_size


def file_cost(part: PromptMessageContent) -> tuple[int, int]:
    """``(tokens, bytes)`` one file's content part adds to a request: its estimated tokens (as
    ``budget.message_tokens`` counts it: ``IMAGE_TOKENS`` an image, ``budget.document_tokens`` a
    document) and the bytes of its JSON in the request line, a comma included. An upper bound of
    what showing the file costs over its mention, which the request then no longer holds."""
    if part.type == PromptMessageContentType.DOCUMENT:
        tokens = document_tokens(part)
    elif part.type == PromptMessageContentType.TEXT:
        tokens = count_tokens(getattr(part, "data", ""))
    else:
        tokens = IMAGE_TOKENS
    return tokens, encoded_size(part.model_dump(mode="json")) + 1


def too_large_alone(costs: Sequence[tuple[int, int]], token_room: int | None, byte_room: int) -> list[bool]:
    """For each file's ``(tokens, bytes)`` (``file_cost``), whether it cannot fit on its own:
    more tokens than ``token_room`` (None: the context window is unknown, tokens never decide) or
    more bytes than ``byte_room``, the room the request leaves with everything else trimmed."""
    return [(token_room is not None and tokens > token_room) or size > byte_room for tokens, size in costs]


def mention_order(dropped: Sequence[int], hopeless: Sequence[bool]) -> tuple[tuple[int, ...], int]:
    """``(order, first)``: the order in which the files (indices into ``hopeless``, oldest first)
    become mentions, and how many of its first entries are trimmed before anything else.

    ``dropped``: the indices already mentions (a round before trimmed them), kept first in their
    order, so trimming never brings a file back; then the files too large alone (``hopeless``,
    ``too_large_alone``), oldest first; then the others, oldest first. ``first`` is
    ``len(dropped)`` plus the hopeless files among the rest."""
    done = set(dropped)
    rest = [index for index in range(len(hopeless)) if index not in done]
    large = [index for index in rest if hopeless[index]]
    fitting = [index for index in rest if not hopeless[index]]
    return (*dropped, *large, *fitting), len(dropped) + len(large)
