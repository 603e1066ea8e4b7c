"""A code block that may be a call, in ReAct's final answer: held back from its fence line (a
```tool_code / ```tool_call block to its closing fence, a ```python block until its code shows
it is no call of a node tool), so a block the output limit cut is never shown as the answer.

Before, the parser streamed ``Let me check.\\n```tool_code\\nlookup(q='a`` to the user and the
turn was the cut answer, continued; Function Calling held it and asked again."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.call_markup import open_fenced_call, python_call_fence_head
from agent_core.model_call import ModelChunk
from agent_core.react.parser import AnswerDelta, ReactStreamParser
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import tool

NAMES = {"lookup": None, "search": None}
REGISTRY = ToolRegistry([tool("lookup", "q"), tool("search", "q")])
HEAD = "Thought: I will look.\nFinal Answer: Let me check that.\n"
CUT_BLOCKS = ["```tool_code\nlookup(q='a", "```tool_call\nprint(default_api.lookup(q='a",
              "```python\nlookup(q='a", "```py\n  search(q='Paris', limit=", "```tool_code\n"]


def in_pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def parse(pieces: list[str], *, cut: bool, tool_names=NAMES) -> tuple[str, str, ReactStreamParser]:
    """(answer text streamed before the reply ended, answer text of finish, the parser)."""
    parser = ReactStreamParser(tool_names=tool_names)
    before = "".join(e.text for piece in pieces for e in parser.feed(piece) if isinstance(e, AnswerDelta))
    after = "".join(e.text for e in parser.finish(cut=cut) if isinstance(e, AnswerDelta))
    return before, after, parser


def read(text: str, size: int, finish_reason: str = "length"):
    chunks = iter([*(ModelChunk(text=piece) for piece in in_pieces(text, size)), ModelChunk(finish_reason=finish_reason)])
    return drain(read_react_turn(chunks, REGISTRY, 1))


@pytest.mark.parametrize("size", [1, 4, 1000])
@pytest.mark.parametrize("block", CUT_BLOCKS[:4])
def test_the_parser_holds_a_call_block_the_limit_cut_and_streams_the_text_before_it(block, size):
    before, after, parser = parse(in_pieces(HEAD + block, size), cut=True)
    assert before == "Let me check that."
    assert after == ""
    assert parser.held_fence is not None and parser.held_fence.strip() == block.strip()
    assert open_fenced_call(parser.held_fence, NAMES)


@pytest.mark.parametrize("size", [1, 1000])
@pytest.mark.parametrize("block", CUT_BLOCKS)
def test_a_cut_call_block_in_the_answer_is_a_cut_reply_asked_again_never_shown(block, size):
    streamed, turn = read(HEAD + block, size)
    assert streamed == "Let me check that."
    assert isinstance(turn.decision, ParseFailure) and turn.decision.problem == prompts.REPLY_CUT
    assert turn.cut


@pytest.mark.parametrize("block", CUT_BLOCKS)
def test_an_unlabelled_reply_ending_in_a_cut_call_block_shows_the_text_before_it(block):
    streamed, turn = read("Let me check that.\n" + block, 3)
    assert streamed == "Let me check that."
    assert isinstance(turn.decision, ParseFailure) and turn.decision.problem == prompts.REPLY_CUT


@pytest.mark.parametrize("size", [1, 5, 1000])
@pytest.mark.parametrize("block", ["```tool_code\nlookup(q='a')\n```", "```python\nlookup(q='a')\n```"])
def test_a_closed_block_streams_whole_once_it_closes(block, size):
    text = HEAD + block + "\nThat is the call I would make."
    before, after, parser = parse(in_pieces(text, size), cut=False)
    assert before + after == "Let me check that.\n" + block + "\nThat is the call I would make."
    assert parser.held_fence is None


@pytest.mark.parametrize("size", [1, 1000])
def test_a_call_block_that_ended_the_reply_unclosed_but_not_cut_is_shown_as_before(size):
    before, after, parser = parse(in_pieces(HEAD + CUT_BLOCKS[0], size), cut=False)
    assert before + after == "Let me check that.\n" + CUT_BLOCKS[0]
    assert parser.held_fence is None


@pytest.mark.parametrize("code", ["import os\nprint(os.sep)\n", "x = lookup(1)\n", "lookups = 2\n", "  \nfor i in range(3):\n"])
def test_ordinary_python_streams_before_the_reply_ends(code):
    """The hold ends once the block's code cannot open a call of a node tool: a python answer
    still streams while it comes (only the fence line and the first line wait)."""
    text = HEAD + "```python\n" + code + "# more code still coming\n"
    before, after, _ = parse(in_pieces(text, 1), cut=True)
    assert before == "Let me check that.\n```python\n" + code + "# more code still coming"
    assert after == ""


@pytest.mark.parametrize("size", [1, 1000])
def test_ordinary_python_the_limit_cut_is_the_cut_answer_shown(size):
    streamed, turn = read(HEAD + "```python\nimport os\nx = lookup(", size)
    assert streamed == "Let me check that.\n```python\nimport os\nx = lookup("
    assert isinstance(turn.decision, FinalAnswer)


@pytest.mark.parametrize("tool_names", [None, {}])
def test_a_python_block_is_not_held_when_the_node_has_no_tools(tool_names):
    before, _, parser = parse(in_pieces(HEAD + "```python\nlookup(q='a", 1), cut=True, tool_names=tool_names)
    assert before == "Let me check that.\n```python\nlookup(q='a"
    assert parser.held_fence is None


@pytest.mark.parametrize("fence", ["```json\n{\"a\": ", "```\nlookup(q='a", "```bash\nlookup(q='a", "~~~text\nhi"])
def test_other_code_blocks_stream_as_before(fence):
    before, after, parser = parse(in_pieces(HEAD + fence, 1), cut=True)
    assert before + after == "Let me check that.\n" + fence.rstrip()
    assert before.endswith(fence.rstrip()[-2:])  # streamed as it came, not held to the end
    assert parser.held_fence is None


def test_a_call_fence_line_inside_an_open_block_is_its_text():
    text = HEAD + "~~~markdown\n```tool_code\nlookup(q='a"
    before, after, parser = parse(in_pieces(text, 1), cut=True)
    assert before + after == "Let me check that.\n~~~markdown\n```tool_code\nlookup(q='a"
    assert parser.held_fence is None


@given(st.lists(st.sampled_from(["Final Answer: ", "ok", "\n", "```tool_code", "```python", "```", "lookup(q='a", ")", " "]),
                max_size=14), st.integers(1, 7), st.booleans())
def test_held_text_is_never_lost_or_reordered(parts, size, cut):
    """Whatever the blocks, what streams plus what finish releases plus what stays held is the
    answer the parser read, in order."""
    text = "Thought: t\n" + "".join(parts)
    before, after, parser = parse(in_pieces(text, size), cut=cut)
    answer = parser.result().final_answer or ""
    assert (before + after + (parser.held_fence or "")).strip() == answer.strip()


@pytest.mark.parametrize(("line", "verdict"), [
    ("```python\nlookup(", True), ("```py\n[lookup(", True), ("```python\nimport os", False),
    ("```python\nlook", None), ("```pyt", None), ("```", None), ("```json\n", False), ("```python\n", None),
    ("~~~python\nlookup(", False), ("```python\nother(", False), ("```python\n" + " " * 300, False),
])
def test_python_call_fence_head(line, verdict):
    assert python_call_fence_head(line, NAMES) is verdict
