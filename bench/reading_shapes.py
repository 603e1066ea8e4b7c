"""``python -m bench.reading_shapes``: the CPU time of reading a reply of one unit repeated, as a
ratio to prose of the same size read the same way, by both strategies' turn readers.

A model looping on one token sends megabytes of it, and the run's deadline is only checked
between chunks; the plugin's readers hold the interpreter lock while they read, so no other
session runs. Each reply is ``unit`` repeated to the size, sent in chunks of the given sizes
(``0``: whole), read by ``read_react_turn`` (ReAct) and ``read_function_calling_turn`` (Function
Calling) with two tools declared. Times are this process's CPU time (``time.process_time``), best
of ``--repeats``, so another process on a loaded machine does not count.

    .venv/bin/python -m bench.reading_shapes                       # every shape, 400 KB, 20 and whole
    .venv/bin/python -m bench.reading_shapes --shapes '<' '>' --chunks 20 --size 1000000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from dify_plugin.interfaces.agent import ToolEntity

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry

PROSE = "Some reasoning about the weather in Paris, and what the user asked for next.\n"
SHAPES = {
    "<": "<",
    ">": ">",
    "<>": "<>",
    "line breaks": "\n",
    "fence json [{name": '```json\n[{"name"\n',
    "[": "[\n",
    "[[[[": "[[[[\n",
    "{": "{\n",
    "tool_call {": "<tool_call>{\n",
    "name get_weather": '{"name": "get_weather"\n',
    "`</think>`": "`</think>` ",
    "<|channel|>": "<|channel|>",
}
"""The reply shapes, by name: the unit repeated (the seventh pass's worst rows)."""


def _tool(name: str, param: str) -> ToolEntity:
    """A node tool with one string parameter."""
    return ToolEntity.model_validate(
        {
            "identity": {"author": "t", "name": name, "label": {"en_US": name}, "provider": "t"},
            "parameters": [
                {
                    "name": param, "label": {"en_US": param}, "human_description": {"en_US": param},
                    "type": "string", "form": "llm", "llm_description": param, "required": False,
                }
            ],
            "description": {"human": {"en_US": name}, "llm": f"The {name} tool"},
        }
    )


def _tools() -> list[ToolEntity]:
    return [_tool("get_weather", "city"), _tool("read_file", "path")]


def reading_time(strategy: str, reply: str, chunk: int, repeats: int) -> float:
    """Best-of-``repeats`` CPU seconds for ``strategy`` (``react`` or ``fc``) to read ``reply`` in
    chunks of ``chunk`` characters (0: whole)."""
    size = chunk or len(reply)
    chunks = [ModelChunk(text=reply[i : i + size]) for i in range(0, len(reply), size)]
    chunks.append(ModelChunk(finish_reason="stop"))
    tools = _tools()

    def read() -> None:
        reader = (
            read_react_turn(iter(chunks), ToolRegistry(tools), 1)
            if strategy == "react"
            else read_function_calling_turn(iter(chunks), [t.identity.name for t in tools])
        )
        try:
            while True:
                next(reader)
        except StopIteration:
            pass

    return _best(read, repeats)


def _best(work: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.reading_shapes", description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), help=f"shape names ({', '.join(SHAPES)})")
    parser.add_argument("--size", type=int, default=400_000, help="characters of each reply")
    parser.add_argument("--chunks", type=int, nargs="*", default=[20, 0], help="chunk sizes (0: whole)")
    parser.add_argument("--strategies", nargs="*", default=["react", "fc"], choices=["react", "fc"])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    prose = (PROSE * (args.size // len(PROSE) + 1))[: args.size]
    print(f"| reply | chunks | {' | '.join(f'{s} s | {s} / prose' for s in args.strategies)} |")
    print(f"|---|---:|{'---:|---:|' * len(args.strategies)}")
    for chunk in args.chunks:
        base = {s: reading_time(s, prose, chunk, args.repeats) for s in args.strategies}
        for name in args.shapes:
            unit = SHAPES[name]
            reply = (unit * (args.size // len(unit) + 1))[: args.size]
            cells = []
            for strategy in args.strategies:
                took = reading_time(strategy, reply, chunk, args.repeats)
                cells.append(f"{took:.3f} | {took / max(base[strategy], 1e-6):.1f}")
            print(f"| {name} | {chunk or 'whole'} | {' | '.join(cells)} |", flush=True)
        print(f"| prose | {chunk or 'whole'} | {' | '.join(f'{base[s]:.3f} | 1.0' for s in args.strategies)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
