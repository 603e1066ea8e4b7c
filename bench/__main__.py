"""``python -m bench [NAME ...]``: run the benchmarks, print their tables, save the results.

    python -m bench                     # all of them (several minutes), writes bench/results.json
    python -m bench parallel overhead   # some; their entries in results.json are replaced
    python -m bench --smoke             # tiny sizes, to check the code works (nothing saved)
    python -m bench --readme            # run all, save, and put the tables in bench/README.md
    python -m bench --readme-only       # put the tables of bench/results.json in the README, run nothing
    python -m bench --profile DIR NAME  # also sample the plugin with py-spy, summary printed

Run from the project root with the project's interpreter (``.venv/bin/python -m bench``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

from bench import report
from bench.harness import Plugin
from bench.profiling import PySpy, summarize
from bench.registry import BENCHMARKS


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    parser.add_argument("--smoke", action="store_true", help="minimal sizes; results are not saved")
    parser.add_argument("--out", type=Path, default=None, help=f"results file (default {report.RESULTS})")
    parser.add_argument("--readme", action="store_true", help="after saving, write the tables into bench/README.md")
    parser.add_argument("--readme-only", action="store_true", help="only rewrite bench/README.md from results.json")
    parser.add_argument(
        "--plugin-dir", type=Path, help="benchmark the plugin in this folder (e.g. another checkout) instead of ."
    )
    parser.add_argument("--runs", type=int, help="override the number of runs per configuration")
    parser.add_argument("--profile", type=Path, metavar="DIR", help="record the plugin with py-spy into DIR")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}")
    return args


def run_benchmarks(args: argparse.Namespace, machine: dict[str, Any], spy: PySpy | None) -> dict[str, Any]:
    """Run the chosen benchmarks on one shared plugin process; their results.json entries."""
    entries = {}
    with Plugin() as plugin:
        for name in args.names or list(BENCHMARKS):
            module = BENCHMARKS[name]
            if spy is not None:
                spy.label = name
            params = module.SMOKE if args.smoke else module.FULL
            if args.runs and hasattr(params, "runs"):
                params = dataclasses.replace(params, runs=args.runs)
            print(f"\n## {module.TITLE} ({name})", flush=True)
            began = time.monotonic()
            result = module.run(params, plugin)
            elapsed = time.monotonic() - began
            print(module.table(result))
            print(f"({elapsed:.1f} s)", flush=True)
            entries[name] = {
                "title": module.TITLE,
                "elapsed_s": round(elapsed, 1),
                "machine": machine,
                "result": result,
            }
    return entries


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.readme_only:
        report.update_readme(report.load(args.out or report.RESULTS))
        print(f"updated {report.README}")
        return 0
    if args.plugin_dir:
        Plugin.default_dir = args.plugin_dir.resolve()
    spy = PySpy(args.profile).install() if args.profile else None
    machine = report.machine(Plugin.default_dir)
    print(report.machine_line(machine))
    started = time.monotonic()
    try:
        entries = run_benchmarks(args, machine, spy)
    finally:
        if spy is not None:
            spy.uninstall()
    print(f"\ntotal {time.monotonic() - started:.1f} s")
    for path in spy.files if spy is not None else []:
        if path.exists():
            print("\n" + summarize(path))
    out = args.out or (None if args.smoke else report.RESULTS)
    if out is not None:
        saved = report.save(entries, out)
        print(f"saved {out}")
        if args.readme:
            report.update_readme(saved)
            print(f"updated {report.README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
