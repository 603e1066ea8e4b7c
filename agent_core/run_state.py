"""The run so far, as data: what the prompt renderers read to build the next request.

``RunState`` holds the finished ``Round``s, how much of the prompt was trimmed to fit the
context window (memory turns dropped, the query's images shown as text, old observations
shortened) and why the run must answer now (iteration limit, repeated calls). Strategies
render it into messages; ``agent_core.loop`` changes it as the run goes.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from dify_plugin.entities.model.message import PromptMessage, PromptMessageTool

from agent_core import prompts
from agent_core.budget import count_tokens, history_turns, prompt_budget
from agent_core.call_markup import recipient_in_prompt, shows_functionary_parts
from agent_core.file_fetch import fetch_documents, fetch_images, url_name
from agent_core.file_trim import file_cost, mention_order, too_large_alone
from agent_core.knowledge import context_prompt, cut_context
from agent_core.line_budget import REQUEST_BYTES
from agent_core.memory_trim import MemoryPlan, plan_memory
from agent_core.memory_trim import shortened_observation as _shortened
from agent_core.messages import (
    attachment_content,
    document_sources,
    image_sources,
    memory_messages,
    query_attachments,
    query_message,
    system_message,
)
from agent_core.own_text import filled, own
from agent_core.params import StrategyParams
from agent_core.think import (
    closes_unopened_block,
    opens_reasoning_in_prompt,
    template_may_open_reasoning,
    thinking_requested,
)
from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.tool_runner import ToolResult
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import ModelTurn, ToolCalls

REPEAT_LIMIT = 3
"""An identical call (same tool, same arguments) runs at most this many times per run.
After a round in which every call was refused as such a repeat, the model is looping:
the next round is the final-answer round (as after the iteration limit)."""


@dataclass(frozen=True)
class Round:
    """One finished round: the model's turn and the results of its tool calls, in call order;
    ``not_run``: the calls beyond the most one round runs (``round_cap.MAX_CALLS_PER_ROUND``), in
    order, which the prompt renderers answer "not run"."""

    index: int
    turn: ModelTurn
    results: tuple[ToolResult, ...] = ()
    not_run: tuple[ToolCall | InvalidToolCall, ...] = ()


@dataclass
class RunState:
    """The run so far, which strategies render into the next prompt.

    ``memory_steps`` counts the steps memory is trimmed by (turns too large alone dropped,
    turns' long tool results shortened, oldest turns dropped: ``agent_core.memory_trim``),
    ``rounds_shortened`` the oldest rounds whose observations are cut short and
    ``files_as_text`` the query's images and documents shown as text mentions (the first of
    ``file_order``), all set by ``trim_to`` to fit the context window (see ``agent_core.budget``).
    ``repeating`` names the tools of a round whose calls were all refused as
    repeats; with ``limit_reached`` it means the run stopped for looping; ``out_of_time`` that
    it stopped because another round would not fit in its time limit; ``out_of_room`` that it
    stopped because the request after the next would not fit in one daemon line.
    """

    params: StrategyParams
    registry: ToolRegistry
    rounds: list[Round] = field(default_factory=list)
    limit_reached: bool = False
    repeating: tuple[str, ...] = ()
    out_of_time: bool = False
    out_of_room: bool = False
    memory_steps: int = 0
    rounds_shortened: int = 0
    files_as_text: int = 0
    file_order: tuple[int, ...] = ()
    """The order in which the query's attachments (indices into ``attachments()``) become text
    mentions (``file_trim.mention_order``, set by ``plan_files``); empty: oldest first."""
    files_first: int = 0
    """How many of ``file_order``'s first files are trimmed before memory and rounds: those too
    large to fit on their own (``plan_files``)."""
    image_notes: list[str] = field(default_factory=list)
    """Why query images the plugin had to fetch went to the model as text (too large, not
    fetched); logged once (``AgentLoop``)."""
    document_notes: list[str] = field(default_factory=list)
    """The same for the query's documents (``file_fetch.fetch_documents``)."""
    fetch_deadline: float | None = None
    """When fetching the query's files must stop (a ``time.monotonic()`` value; None: no limit)."""
    knowledge_limit: tuple[int | None, int | None] = (None, None)
    """``(tokens, characters)`` the knowledge context may take in the system message, set by
    `shrink_knowledge` when nothing else is left to trim; ``(None, None)``: all of it."""
    reasoning_opened: bool = False
    """A reply of this run closed a reasoning block it never opened (``</think>`` alone): the
    model's template opens it in the prompt, so later replies are read that way."""
    functionary_seen: bool = False
    """A reply of this run held Functionary's recipient parts (``>>>all``, ``>>>NAME`` above a
    call): the model is Functionary, so a later reply's first line ``all`` is its recipient."""
    redact_memory: Callable[[list[PromptMessage]], list[PromptMessage]] | None = field(
        default=None, repr=False, compare=False)
    """The run's prompt redactor (``outbound.prompt_redactor``), run on memory before it is split
    into turns and trimmed: a secret the user typed in an earlier turn is hidden whole before a
    long tool result is shortened, so the cut never leaves a piece of it (None: no secrets)."""
    cut_answer: str = field(default="", repr=False, compare=False)
    """The answer of the last round the output limit cut, as the model wrote it (set by the loop).
    That round's turn holds it with a start of a secret at its edge hidden (``[REDACTED]``: it is
    replayed to the model); a strategy that joins the cut answer and its rest itself (the user's
    answer schema) joins this one, so that the run's guard finds the whole secret across the cut
    and not its rest alone after the marker."""
    rendered: dict = field(default_factory=dict, repr=False, compare=False)
    """Prompt renderers' memo: a finished round renders the same every time (keyed by what
    changes its rendering), so a long run does not rebuild every earlier round each round."""

    def call_ids(self) -> frozenset[str]:
        """The tool-call ids already in the conversation: memory's and this run's (kept up to
        date as rounds are added, not gathered anew each round)."""
        ids, counted = self.rendered.get("call_ids", (None, 0))
        if ids is None:
            ids = {call.id for message in self.history() for call in message.__dict__.get("tool_calls") or []}
        for round_ in self.rounds[counted:]:
            if isinstance(round_.turn.decision, ToolCalls):
                ids.update(call.id for call in (*round_.turn.decision.calls, *round_.turn.decision.invalid))
        self.rendered["call_ids"] = (ids, len(self.rounds))
        return frozenset(ids)

    def reasoning_may_open_in_prompt(self) -> bool:
        """Whether the next reply may start inside a reasoning block its template opened in the
        prompt: the model is known to (``think.opens_reasoning_in_prompt``), its completion
        parameters turn thinking on (both read once a run: the node's model does not change), or
        a reply of this run showed it (``reasoning_opened``)."""
        if self.reasoning_opened:
            return True
        if (known := self.rendered.get("reasoning-in-prompt")) is None:
            model = self.params.model
            known = opens_reasoning_in_prompt(model.model) or thinking_requested(model.completion_params)
            self.rendered["reasoning-in-prompt"] = known
        return known

    def reasoning_may_open_unannounced(self) -> bool:
        """Whether a reply of a model not known to open a reasoning block in the prompt may still
        start inside one: its model plugin serves a model the user runs (``think.
        template_may_open_reasoning``), whose template the name does not tell. Function Calling
        then holds a reply's first characters to look for a bare ``</think>``."""
        return template_may_open_reasoning(self.params.model.provider)

    def recipient_may_open_in_prompt(self) -> bool:
        """Whether the model is a Functionary model, whose generation prompt ends with ``>>>``
        (known by name, ``call_markup.recipient_in_prompt``, or from a reply of this run that
        held its recipient parts, ``functionary_seen``): a reply's first line ``all`` is then
        its recipient, not text."""
        if self.functionary_seen:
            return True
        if (known := self.rendered.get("recipient-in-prompt")) is None:
            known = self.rendered["recipient-in-prompt"] = recipient_in_prompt(self.params.model.model)
        return known

    def learn_from_reply(self, content: object) -> None:
        """Note a reply (its content as the model plugin sent it) that closed a reasoning block
        it never opened (later replies of the run are read as starting inside one), or that held
        Functionary's recipient parts (``call_markup.shows_functionary_parts``)."""
        if not isinstance(content, str):
            return
        if not self.reasoning_opened and closes_unopened_block(content):
            self.reasoning_opened = True
        if not self.functionary_seen and shows_functionary_parts(content):
            self.functionary_seen = True

    def render_tools(self, render: Callable[[list[PromptMessageTool]], str]) -> str:
        """``render(registry.prompt_tools())``, built once per run for each renderer (the tools
        block of a ReAct prompt is the same every round)."""
        key = ("tools", render)
        if key not in self.rendered:
            self.rendered[key] = render(self.registry.prompt_tools())
        return self.rendered[key]

    def system(self, *notes: str) -> list[PromptMessage]:
        """``messages.system_message(params, *notes)`` built once per run for each set of notes
        (the tools block and the limit note change at most once a run): the same message object
        every round, so it is measured and serialized once (``agent_core.memo``)."""
        key = ("system", notes, self.knowledge_limit)
        if key not in self.rendered:
            self.rendered[key] = system_message(self.params, *notes, knowledge_limit=self.knowledge_limit)
        return self.rendered[key]

    def _knowledge(self) -> tuple[str, int]:
        """The knowledge block (``knowledge.context_prompt``) within ``knowledge_limit``, and the
        characters of it left out (``knowledge.cut_context``), once per limit."""
        key = ("knowledge", self.knowledge_limit)
        if key not in self.rendered:
            self.rendered[key] = cut_context(context_prompt(self.params.context), *self.knowledge_limit)
        return self.rendered[key]

    def knowledge_left_out(self) -> int:
        """Characters of the knowledge block the model is not sent (0 when it gets all of it)."""
        return self._knowledge()[1]

    def shrink_knowledge(self, tokens: int, chars: int) -> bool:
        """Make the knowledge context ``tokens`` (estimated) and ``chars`` smaller than it is
        now: the last thing cut to fit the window and the request line, after memory, old
        observations and the query's files, since it is what the answer is grounded on.
        Returns False when there is none left to cut."""
        block, _ = self._knowledge()
        if not block:
            return False
        self.knowledge_limit = (max(count_tokens(block) - max(tokens, 0), 0), max(len(block) - max(chars, 0), 0))
        return True

    def history(self) -> list[PromptMessage]:
        """Conversation memory, cleaned, trimmed by ``memory_steps`` (``memory_trim``): without
        the turns dropped for space, long tool results of the turns shortened shown shortened."""
        key = ("history", self.memory_steps)
        if key not in self.rendered:
            if self.memory_steps:
                self.rendered[key] = self._memory_plan().messages(self.memory_steps)
            else:
                self.rendered[key] = [message for turn in self._memory_turns() for message in turn]
        return self.rendered[key]

    def _memory_plan(self) -> MemoryPlan:
        """How memory is trimmed step by step, planned once, when the prompt is first over budget."""
        if "memory-plan" not in self.rendered:
            self.rendered["memory-plan"] = plan_memory(self._memory_turns(), prompt_budget(self.params), REQUEST_BYTES)
        return self.rendered["memory-plan"]

    def memory_trimmed(self, steps: int | None = None) -> tuple[int, int]:
        """``(turns dropped, turns kept with their tool results shortened)`` after ``steps``
        memory steps (``memory_steps`` when None)."""
        steps = self.memory_steps if steps is None else steps
        if not steps:
            return 0, 0
        dropped, shortened = self._memory_plan().at(steps)
        return len(dropped), len(shortened)

    @property
    def history_dropped(self) -> int:
        """Memory turns left out to fit the context window."""
        return self.memory_trimmed()[0]

    def _memory_turns(self) -> list[list[PromptMessage]]:
        if "memory" not in self.rendered:
            messages = memory_messages(self.params)
            if self.redact_memory is not None:
                messages = self.redact_memory(messages)
            self.rendered["memory"] = history_turns(messages)
        return self.rendered["memory"]

    def file_blobs(self) -> dict[str, bytes]:
        """The query's files the plugin sends as data, fetched on first use, by address: the
        images only the plugin can reach (a vision model only) and the sendable documents (a
        model that declares ``document`` only; ``file_fetch``). For a model without vision, why
        each image is only told of is noted once (``image_notes``: an ``IMAGE AS TEXT`` log node);
        for a model without ``document``, the same for its sendable documents (PDFs:
        ``document_notes``, a ``DOCUMENT AS TEXT`` log node)."""
        if "file_blobs" not in self.rendered:
            images = image_sources(self.params) if self.vision else []
            if not self.vision and (names := [name or url_name(url) or "an image"
                                              for url, _, name in image_sources(self.params)]):
                self.image_notes.append(prompts.QUERY_IMAGE_NO_VISION.format(name=_named(names)))
            documents = document_sources(self.params) if self.reads_documents else []
            if not self.reads_documents and (names := [name or url_name(url) or "a document"
                                                       for url, _, name in document_sources(self.params)]):
                self.document_notes.append(prompts.QUERY_DOCUMENT_NO_DOCUMENT.format(name=_named(names)))
            self.rendered["file_blobs"] = {
                **fetch_images(images, left_out=self.image_notes, deadline=self.fetch_deadline),
                **fetch_documents(documents, left_out=self.document_notes, deadline=self.fetch_deadline),
            }
        return self.rendered["file_blobs"]

    def is_shortened(self, round_: "Round") -> bool:
        """Whether ``round_``'s observations are rendered shortened."""
        return round_.index <= self.rounds_shortened

    def observation(self, round_: "Round", result: ToolResult) -> str:
        """What the model reads of a tool result (shortened for old rounds when space is short)."""
        if round_.index > self.rounds_shortened:
            return result.observation
        return _shortened(result.observation)

    @property
    def trimmed(self) -> tuple[int, int, int]:
        """How far the prompt is trimmed: ``(memory_steps, rounds_shortened, files_as_text)``."""
        return self.memory_steps, self.rounds_shortened, self.files_as_text

    def _file_order(self) -> tuple[int, ...]:
        """``file_order``, or the attachments oldest first when it was never planned."""
        return self.file_order or tuple(range(len(self.attachments())))

    def files_shown_as_text(self, shown: int = 0) -> list:
        """The query's attachments shown as text mentions past the first ``shown`` of
        ``file_order`` (a value of ``files_as_text`` before), in the order they were trimmed."""
        attachments = self.attachments()
        return [attachments[index] for index in self._file_order()[shown : self.files_as_text]]

    def _file_costs(self) -> list[tuple[int, int]]:
        """``file_trim.file_cost`` of each attachment as it would be sent, once per run."""
        if "file-costs" not in self.rendered:
            blobs = self.file_blobs()
            self.rendered["file-costs"] = [file_cost(attachment_content(f, blobs)) for f in self.attachments()]
        return self.rendered["file-costs"]

    def plan_files(self, shown: int, token_room: int | None, byte_room: int) -> None:
        """Order the attachments not among the first ``shown`` of ``file_order`` (those already
        mentions stay first): the ones too large to fit on their own in ``token_room`` estimated
        tokens (None: unknown window) and ``byte_room`` bytes, the room a request with everything
        else trimmed leaves, become mentions first, before memory and rounds are trimmed; the
        others oldest first, after them (``file_trim``). Planned each time a round's prompt is
        trimmed, as that room shrinks while a run goes."""
        if len(self.attachments()) <= shown:
            return
        hopeless = too_large_alone(self._file_costs(), token_room, byte_room)
        self.file_order, self.files_first = mention_order(self._file_order()[:shown], hopeless)

    def trim_room(self, base: tuple[int, int, int]) -> int:
        """Steps of trimming possible past ``base`` (a value of ``trimmed``): memory steps left
        (``memory_trim``), rounds not yet shortened, images and documents still shown."""
        history, rounds, shown = base
        memory = self._memory_plan().steps
        return (memory - history) + (len(self.rounds) - rounds) + (len(self.attachments()) - shown)

    def trim_to(self, base: tuple[int, int, int], steps: int) -> None:
        """Trim ``steps`` steps past ``base`` (``steps`` at most ``trim_room(base)``; fewer steps
        than the last call's undoes the difference, never past ``base``).

        Oldest first, and what the question needs least first: the query's files too large to
        fit on their own (``files_first``, ``plan_files``: they can never be sent), memory (a
        turn too large alone dropped, long tool results shortened, then turns dropped:
        ``memory_trim``), then the observations of this run's oldest rounds, then the query's
        other images and documents (oldest first), which a question about a picture or a file
        needs most. One step is one file, turn or round, so a caller can search for the fewest
        that fit (``agent_core.loop``)."""
        history, rounds, shown = base
        memory = self._memory_plan().steps
        first_files = min(steps, max(self.files_first - shown, 0))
        steps -= first_files
        more_history = min(steps, memory - history)
        more_rounds = min(steps - more_history, len(self.rounds) - rounds)
        self.memory_steps = history + more_history
        self.rounds_shortened = rounds + more_rounds
        self.files_as_text = shown + first_files + steps - more_history - more_rounds

    def attachments(self) -> list:
        """The query's files the model is sent as content (``messages.query_attachments``), in
        order; the first ``files_as_text`` of ``file_order`` are shown as text."""
        if "attachments" not in self.rendered:
            self.rendered["attachments"] = query_attachments(
                self.params, images=self.vision, documents=self.reads_documents, blobs=self.file_blobs()
            )
        return self.rendered["attachments"]

    @property
    def vision(self) -> bool:
        """True when the model sees images (it declares ``vision``)."""
        return "vision" in self.params.model_features()

    @property
    def reads_documents(self) -> bool:
        """True when the model reads documents (it declares ``document``)."""
        return "document" in self.params.model_features()

    def query(self) -> PromptMessage:
        """The user's query with this turn's files: images as images for a vision model and
        PDFs as documents for a model that reads them, in every round (the model keeps seeing
        the picture or the file it is asked about), except those shown as text to fit the window."""
        as_text = frozenset(self._file_order()[: self.files_as_text]) if self.files_as_text else frozenset()
        key = ("query", as_text)
        if key not in self.rendered:
            self.rendered[key] = query_message(
                self.params,
                images_as_content=self.vision,
                documents_as_content=self.reads_documents,
                as_text=as_text,
                blobs=self.file_blobs(),
            )
        return self.rendered[key]

    @property
    def round_index(self) -> int:
        """1-based index of the round being built."""
        return len(self.rounds) + 1

    def limit_note(self) -> str:
        """The note that asks for an answer without tools, once the limit is reached ('' before)."""
        if not self.limit_reached:
            return ""
        if self.repeating:  # the plugin's own words marked (``own_text``), the tools' names not
            return filled(prompts.REPEATED_CALLS_NOTE, names=", ".join(self.repeating), count=own(str(REPEAT_LIMIT)))
        if self.out_of_time:
            return own(prompts.TIME_LIMIT_NOTE)
        if self.out_of_room:
            return own(prompts.SIZE_LIMIT_NOTE)
        return filled(prompts.ITERATION_LIMIT_NOTE, rounds=own(prompts.rounds(self.params.maximum_iterations)))


NAMES_SHOWN = 10
"""File names a note lists before it counts the rest (``_named``)."""


def _named(names: list[str]) -> str:
    """``names`` joined by commas, the first ``NAMES_SHOWN`` of them and how many more."""
    shown = ", ".join(names[:NAMES_SHOWN])
    return shown if len(names) <= NAMES_SHOWN else f"{shown} and {len(names) - NAMES_SHOWN} more"
