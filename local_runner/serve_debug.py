"""``python -m local_runner.serve_debug``: be Dify's remote-debugging endpoint for the plugin.

The runner listens like the daemon's debug port, waits for the plugin to connect with the
key, then runs one scenario over that connection (same options as ``python -m local_runner
run``: ``--scenario``, ``--query``, ``--script``, ``--base-url``, ``--json``, ...)::

    python -m local_runner.serve_debug --port 5003 --key my-key --scenario scenarios/calculator.yaml
    # then, in the plugin folder, with a .env holding the three lines it prints:
    python -m main

    python -m local_runner.serve_debug --launch --scenario scenarios/calculator.yaml   # starts the plugin

Exit code: 0 if the run ended without error, 1 otherwise, 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from typing import Any

from rich.console import Console

from local_runner import cli
from local_runner.builtin_tools import default_toolbox
from local_runner.cli import UsageError, build_parser, build_scenario, choose_backend, save_process_transcript
from local_runner.daemon import PluginError
from local_runner.remote import RemoteDebugServer
from local_runner.render import LiveView, render_summary
from local_runner.result import RunResult
from local_runner.scenario import run_scenario


def build_serve_parser() -> argparse.ArgumentParser:
    """The endpoint's own options; everything else goes to ``run``'s parser."""
    parser = argparse.ArgumentParser(
        prog="python -m local_runner.serve_debug",
        description="Listen as Dify's remote-debugging endpoint and run one scenario on the plugin that connects.",
        epilog="Every option of `python -m local_runner run` is accepted too (scenario, model backend, output).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    parser.add_argument("--port", type=int, default=5003, help="port to listen on, 0 = any free (default: %(default)s)")
    parser.add_argument("--key", help="the debug key the plugin must send (default: a new UUID, printed)")
    parser.add_argument("--wait", type=float, default=300.0, help="seconds to wait for the plugin (default: 300)")
    parser.add_argument(
        "--launch", action="store_true", help="start the plugin (in --plugin-dir) with the settings in its environment"
    )
    return parser


def serve(argv: list[str], console: Console) -> tuple[RunResult, bool]:
    """Listen, get the plugin connected, run the scenario; returns the result and ``--json``."""
    own, rest = build_serve_parser().parse_known_args(argv)
    args = build_parser().parse_args(["run", *rest])
    scenario = build_scenario(args)
    backend = choose_backend(args, scenario)
    # like ``run``: the backend may impose model settings and need closing (e.g. the local model)
    present = getattr(cli, "present_model", lambda _backend, scenario: scenario)
    closing: Any = getattr(cli, "closing_backend", lambda _backend: contextlib.nullcontext())
    with closing(backend), RemoteDebugServer(own.host, own.port, own.key) as server:
        scenario = present(backend, scenario)
        if own.launch:
            plugin = server.launch(args.plugin_dir, python=args.python, ready_timeout=args.ready_timeout)
        else:
            console.print(f"[bold]listening on {server.address}[/]; start the plugin with this .env in its folder:")
            console.print(server.dotenv(), markup=False, highlight=False)
            plugin = server.accept(timeout=own.wait, plugin_dir=args.plugin_dir)
        console.print(f"plugin connected: {', '.join(plugin.registration)}")
        toolbox = default_toolbox()
        try:
            if args.json:
                result = run_scenario(scenario, backend, toolbox, plugin=plugin, timeout=args.timeout)  # type: ignore[arg-type]
            else:
                with LiveView(console) as view:
                    result = run_scenario(
                        scenario,
                        backend,
                        toolbox,
                        plugin=plugin,  # type: ignore[arg-type]
                        on_update=view.on_update,
                        timeout=args.timeout,
                    )
        finally:
            if args.transcript:
                save_process_transcript(plugin, args.transcript)  # type: ignore[arg-type]
    return result, args.json


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    console = Console(stderr="--json" in argv)
    try:
        result, as_json = serve(argv, console)
    except UsageError as exc:
        console.print(f"[red]error:[/] {exc}")
        return 2
    except (PluginError, OSError, ValueError, RuntimeError) as exc:  # RuntimeError: e.g. the local model
        console.print(f"[bold red]cannot run:[/] {exc}")
        return 1
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        return 130
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    else:
        console.print(render_summary(result))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
