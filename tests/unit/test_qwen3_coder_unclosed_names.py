"""Qwen3-Coder's XML call with a name whose ``>`` was left out, and a function body holding what
the reader cannot read, through both strategies' turn readers (whole and in pieces of 1 and 7
characters, as the real-world passes read their replies).

mlx-lm's ``qwen3_coder`` parser repairs ``<parameter=path\\n/etc/hosts`` and
``<function=read_file\\n<parameter=...`` (its ``tests/test_tool_parsing.py``). The plugin reads
such a name to the end of its line only when it is one of the node's tools (a function) or one
of the called tool's declared parameters (a parameter), with no space in it. Anything else in a
function's body that is not a parameter, a blank or a closing tag makes the call unreadable: it
is asked again, never run with that argument dropped.
"""

import pytest

from agent_core.text_calls import calls_from_block
from tests.unit.test_real_world_2026 import Case, check_reply, reply_params, tool
from tests.unit.test_real_world_2026d import read

READ = tool("read_file", "path", "mode")
WRITE = tool("write_file", "path", "content")
HOSTS = {"path": "/etc/hosts"}


def _bare(body: str, name: str = "read_file>") -> str:
    """A Qwen3-Coder function without its ``<tool_call>`` (``name`` with its ``>``, or not)."""
    return f"<function={name}\n{body}</function>"


def _wrapped(body: str, name: str = "read_file>") -> str:
    """The same function in its ``<tool_call>`` block, as the chat template writes it."""
    return f"<tool_call>\n{_bare(body, name)}\n</tool_call>"


def _unread(tools: tuple, content: str) -> Case:
    """A reply whose call cannot be read: asked again (no answer kept for later), nothing runs and
    none of its markup is shown."""
    return Case(tools, content, fallback="", hidden=("<function", "<param", "/etc/hosts"))


UNCLOSED_PATH = "<parameter=path\n/etc/hosts\n</parameter>\n"
CLOSED_PATH = "<parameter=path>\n/etc/hosts\n</parameter>\n"

CASES = {
    # ---- read: the name is one the node declared ----------------------------------------------
    "parameter-name-unclosed": Case((READ,), _bare(UNCLOSED_PATH), calls=[("read_file", HOSTS)], hidden=("<parameter",)),
    "parameter-name-unclosed-in-tool-call": Case(
        (READ,), _wrapped(UNCLOSED_PATH), calls=[("read_file", HOSTS)], hidden=("<parameter",),
    ),
    "function-name-unclosed": Case(
        (READ,), _bare(CLOSED_PATH, "read_file"), calls=[("read_file", HOSTS)], hidden=("<function",),
    ),
    "function-name-unclosed-in-tool-call": Case(
        (READ,), _wrapped(CLOSED_PATH, "read_file"), calls=[("read_file", HOSTS)], hidden=("<function",),
    ),
    "both-names-unclosed": Case(
        (READ,), _wrapped(UNCLOSED_PATH, "read_file"), calls=[("read_file", HOSTS)], hidden=("<function",),
    ),
    # mlx-lm's third repair: a '>' inside the value is the value's, not the tag's
    "greater-than-in-value": Case(
        (READ,), _bare("<parameter=path\na>b\n</parameter>\n"), calls=[("read_file", {"path": "a>b"})],
    ),
    "blanks-after-the-name": Case(
        (READ,), _bare("<parameter=path  \n/etc/hosts\n</parameter>\n"), calls=[("read_file", HOSTS)],
    ),
    "one-unclosed-one-closed": Case(
        (READ,), _wrapped(UNCLOSED_PATH + "<parameter=mode>\nr\n</parameter>\n"),
        calls=[("read_file", {"path": "/etc/hosts", "mode": "r"})],
    ),
    "two-tools-the-called-ones-parameter": Case(
        (READ, WRITE), _wrapped("<parameter=path\nnotes.txt\n</parameter>\n<parameter=content\nhello\n</parameter>\n",
                                "write_file"),
        calls=[("write_file", {"path": "notes.txt", "content": "hello"})],
    ),
    "after-a-thought": Case(
        (READ,), "Thought: I need the hosts file.\n" + _bare(UNCLOSED_PATH), calls=[("read_file", HOSTS)],
        only=("react",), hidden=("<parameter",),
    ),
    # ---- not read: asked again, nothing runs ---------------------------------------------------
    # a name that is no parameter of the tool (of another tool of the node, too)
    "parameter-name-unclosed-not-declared": _unread((READ,), _bare("<parameter=file\n/etc/hosts\n</parameter>\n")),
    "parameter-name-unclosed-of-another-tool": _unread(
        (READ, WRITE), _wrapped(CLOSED_PATH + "<parameter=content\nx\n</parameter>\n"),
    ),
    "parameter-name-unclosed-with-a-space": _unread((READ,), _bare("<parameter=the path\n/etc/hosts\n</parameter>\n")),
    "function-name-unclosed-not-a-tool": _unread((READ,), _bare(CLOSED_PATH, "delete_file")),
    # the general rule: a parameter tag the reader cannot read is never skipped
    "parameter-tag-with-a-space": _unread((READ,), _bare("<parameter=the path>\n/etc/hosts\n</parameter>\n")),
    "parameter-tag-unread-after-a-good-one": _unread((READ,), _wrapped(CLOSED_PATH + "<parameter=flags\nr\n</parameter>\n")),
    "param-tag-of-another-form": _unread((READ,), _wrapped("<param=path>/etc/hosts</param>\n")),
    "argument-written-as-a-line": _unread((READ,), _wrapped("<parameter=mode>r</parameter>\npath: /etc/hosts\n")),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(reply_params(CASES, {})))
def test_qwen3_coder_reply(name, strategy, size):
    check_reply(CASES, name, strategy, size, reader=read)


def test_unclosed_names_are_read_only_with_the_tools():
    """Without the node's tools the reader cannot tell a tool's name or a parameter's from any
    word: the call is not read at all (no call to run with its argument dropped)."""
    tools = {t.identity.name: None for t in (READ,)}
    assert calls_from_block(_bare(UNCLOSED_PATH)) == []
    assert calls_from_block(_bare(CLOSED_PATH, "read_file")) == []
    assert calls_from_block(_bare(CLOSED_PATH, "read_file"), tools) == [("read_file", HOSTS)]
    # a tool known by name only (no declaration): its parameters are unknown, so not repaired
    assert calls_from_block(_bare(UNCLOSED_PATH), tools) == []


def test_closed_tags_and_stray_closers_read_as_before():
    """Blanks and closing tags left in the body (a stray ``</parameter>``, the ``</tool_call>``
    after a ``</function>`` left out) are no argument: the call runs."""
    assert calls_from_block("<function=read_file>\n<parameter=path>a.py</parameter></parameter>\n</function>") == [
        ("read_file", {"path": "a.py"})
    ]
    assert calls_from_block("<function=read_file>\n<parameter=path>\na.py\n</parameter>\n</tool_call>") == [
        ("read_file", {"path": "a.py"})
    ]
    assert calls_from_block("<function=read_file>\n<parameter=path>\na.py\n</parameter>\nthen I read it") == []
