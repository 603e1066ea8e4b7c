"""``ReactStreamParser`` keeps its attributes in ``__slots__`` (one is built every model turn):
an attribute set anywhere in the class but missing from the list would fail the run with an
``AttributeError`` only on the path that sets it. Read from the source, so every path counts."""

import ast
import inspect

from agent_core.react import parser


def _assigned_attributes(cls: type) -> set[str]:
    tree = ast.parse(inspect.getsource(cls))
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                names.add(target.attr)
    return names


def test_every_attribute_the_parser_sets_has_a_slot():
    cls = parser.ReactStreamParser
    assert not _assigned_attributes(cls) - set(cls.__slots__)
