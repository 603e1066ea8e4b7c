"""Conversation memory trimmed to fit the context window, one step at a time.

Memory is a list of turns, each starting at a user message (``budget.history_turns``), so a
tool call and its results always stand in one turn. A turn that does not fit loses the text of
its long tool results (observations) first, as a run's own old observations do
(``shortened_observation``: the head and a short tail, with a note saying how much was left
out); it is dropped only when even shortened the memory does not fit. The steps, each leaving
the memory no larger than the one before, so the loop can search for the fewest that fit:

1. the turns that alone, shortened, are over the whole prompt budget (tokens) or the request's
   byte budget are dropped: they can never be kept (a 200 KB text a user pasted), and dropping
   them first keeps the older turns that fit;
2. the turns with a long tool result are shortened, oldest first;
3. the other turns are dropped, oldest first.

Everything else of a kept turn is left as memory gave it: its messages are the same objects,
a shortened tool result is a copy with only its text changed (its call id and name kept).
Planning is linear in the memory: each message is looked at and measured once.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate, chain

from dify_plugin.entities.model.message import PromptMessage, TextPromptMessageContent, ToolPromptMessage

from agent_core import prompts
from agent_core.budget import message_tokens, messages_over_bytes
from agent_core.fairness import give_way, paced
from agent_core.memo import per_text
from agent_core.tokens import truncate_to_tokens

SHORTENED_OBSERVATION_TOKENS = 200
"""What is left of an old observation, a run's own or one in memory, when the prompt must
shrink (tokens)."""


def _shorten(observation: str) -> str:
    """``observation`` cut to ``SHORTENED_OBSERVATION_TOKENS`` (estimated) with a note saying how
    many tokens were left out (``prompts.OBSERVATION_SHORTENED``), or itself when it fits."""
    text, cut = truncate_to_tokens(observation, SHORTENED_OBSERVATION_TOKENS)
    return text + prompts.OBSERVATION_SHORTENED.format(tokens=cut) if cut else observation


SHORTENED_REMEMBERED_CHARS = 4 * 1024 * 1024
"""Characters of the observations whose shortened text ``shortened_observation`` remembers (it
is rendered again every round; ``memo.per_text`` bounds them by size for a long-lived process)."""

shortened_observation = per_text(_shorten, SHORTENED_REMEMBERED_CHARS)
"""``_shorten``, remembered per text within ``SHORTENED_REMEMBERED_CHARS``."""


def shortened_result(message: PromptMessage) -> PromptMessage:
    """A tool result (``ToolPromptMessage``) with its text shortened (``shortened_observation``),
    a string content or each text part of a list; ``message`` itself when nothing in it is long
    or it is not a tool result. The copy keeps the call id, the name and every other part."""
    if not isinstance(message, ToolPromptMessage):
        return message
    content = message.content
    if isinstance(content, str):
        short = shortened_observation(content)
        return message if short == content else message.model_copy(update={"content": short})
    if not isinstance(content, list):
        return message
    parts = [
        part.model_copy(update={"data": shortened_observation(part.data)})
        if isinstance(part, TextPromptMessageContent) and shortened_observation(part.data) != part.data
        else part
        for part in content
    ]
    if all(new is old for new, old in zip(parts, content, strict=True)):
        return message
    return message.model_copy(update={"content": parts})


@dataclass(frozen=True)
class MemoryPlan:
    """How memory is trimmed step by step (``plan_memory``).

    ``turns``: the memory's turns as given; ``shortened``: each turn with its long tool results
    shortened (the same list object when none is long); ``hopeless``: turns over the budget alone
    even shortened, oldest first; ``shortenable``: the other turns that have a long tool result,
    oldest first; ``rest``: the other turns, oldest first (``hopeless`` and ``rest`` together
    are every turn)."""

    turns: tuple[tuple[PromptMessage, ...], ...]
    shortened: tuple[tuple[PromptMessage, ...], ...]
    hopeless: tuple[int, ...]
    shortenable: tuple[int, ...]
    rest: tuple[int, ...]

    @cached_property
    def _flat(self) -> tuple[list[PromptMessage], list[PromptMessage], list[int]]:
        """``(given, shortened, starts)``: every turn's messages in one list as given, and with the
        long tool results shortened, and where each turn starts in both (one entry more: the end)."""
        starts = [0, *accumulate(map(len, self.turns))]
        return list(chain.from_iterable(self.turns)), list(chain.from_iterable(self.shortened)), starts

    @property
    def steps(self) -> int:
        """How many steps there are: after the last, no memory is left."""
        return len(self.turns) + len(self.shortenable)

    def at(self, steps: int) -> tuple[frozenset[int], frozenset[int]]:
        """``(dropped, shortened)``: the indices of the turns dropped and of the kept turns shown
        shortened after ``steps`` steps (clamped to ``0..self.steps``)."""
        steps = min(max(steps, 0), self.steps)
        hopeless = self.hopeless[:steps]
        steps -= len(hopeless)
        shortened = self.shortenable[:steps]
        steps -= len(shortened)
        dropped = frozenset((*hopeless, *self.rest[:steps]))
        return dropped, frozenset(shortened) - dropped

    def messages(self, steps: int) -> list[PromptMessage]:
        """The memory after ``steps`` steps, in order: the kept turns, whole, each shortened or
        as given. With no turn too large alone and every long tool result shortened (or none),
        the kept turns are the newest ones: a slice of the memory, taken in C (a search for the
        fewest steps builds it some 17 times, and a memory of 100,000 messages was walked turn by
        turn each time)."""
        steps = min(max(steps, 0), self.steps)
        if not self.hopeless and steps >= len(self.shortenable):
            given, short, starts = self._flat
            return (short if self.shortenable else given)[starts[steps - len(self.shortenable)] :]
        dropped, shortened = self.at(steps)
        return [
            message
            for index, turn in enumerate(paced(self.turns))  # built in each probe of the search for the fewest steps
            if index not in dropped
            for message in (self.shortened[index] if index in shortened else turn)
        ]


def plan_memory(
    turns: Sequence[Sequence[PromptMessage]], token_limit: int | None, byte_limit: int
) -> MemoryPlan:
    """The steps that trim memory (``MemoryPlan``) for a prompt of at most ``token_limit``
    estimated tokens (None: the context window is unknown) and ``byte_limit`` bytes of prompt
    messages. ``turns``: memory split into turns (``budget.history_turns``), oldest first; a turn
    whose shortened messages alone take more than a limit is hopeless. Linear in the memory: each
    tool result is shortened once and each message measured once (``budget.message_tokens``,
    ``budget.messages_over_bytes``)."""
    given = tuple(tuple(turn) for turn in turns)
    shortened: list[tuple[PromptMessage, ...]] = []
    hopeless: list[int] = []
    shortenable: list[int] = []
    rest: list[int] = []
    for index, turn in enumerate(given):
        give_way()
        short = tuple(shortened_result(message) for message in turn)
        changed = any(new is not old for new, old in zip(short, turn, strict=True))
        short = short if changed else turn
        shortened.append(short)
        over_tokens = token_limit is not None and sum(message_tokens(m) for m in short) > token_limit
        if over_tokens or messages_over_bytes(short, byte_limit):
            hopeless.append(index)
            continue
        rest.append(index)
        if changed:
            shortenable.append(index)
    return MemoryPlan(given, tuple(shortened), tuple(hopeless), tuple(shortenable), tuple(rest))
