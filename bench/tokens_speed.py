"""Token estimate speed: MB/s of ``estimate_tokens`` and ``truncate_to_tokens`` on megabytes of
mixed text, against plain passes over the same text, and how long each stalls other greenlets.

In-process (the plugin process is not involved): ``agent_core/tokens.py`` is loaded from the
plugin folder being measured (``python -m bench --plugin-dir DIR tokens_speed`` measures another
checkout, e.g. the code before a change). The text is ``mixed_text``: English-like prose, JSON
records, code, Chinese prose and accented/Cyrillic words in blocks of a few KB, as tool output
mixes them. Times are the best of ``runs`` (the estimate's cache of long texts is cleared before
each call); MB = 10^6 bytes of the text's UTF-8. Baselines: ``len(text.encode())`` (the cheapest
pass that reads every character: C) and ``for char in text: pass`` (one Python step per
character). "Longest stall" is the longest time a ticking greenlet could not run while the
function worked (the SDK serves every session of a plugin process on one gevent hub), from a
separate, untimed call; "yields" counts its ticks.
"""

from __future__ import annotations

import importlib.util
import itertools
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import gevent

from bench.harness import Plugin, filler_text, json_records

NAME = "tokens_speed"
TITLE = "Token estimate speed (MB/s on mixed text; longest stall of other greenlets)"


@dataclass(frozen=True)
class Params:
    sizes: tuple[int, ...] = (1_000_000, 6_000_000)
    """Characters of mixed text."""
    max_tokens: int = 4000
    """Budget of ``truncate_to_tokens`` (the plugin's default observation budget)."""
    runs: int = 3
    secrets: tuple[int, ...] = (1, 20, 100, 500)
    """Numbers of secrets (3 to 40 characters) the text is redacted of (``redaction._Secrets``)."""


FULL = Params()
SMOKE = Params(sizes=(20_000,), runs=1, secrets=(1, 100))

_CHINESE = (
    "智能体在决定下一步做什么之前，会先阅读每个工具返回的结果。如果结果很长，它会保留开头和结尾的一小部分，"
    "并告诉模型删掉了多少内容。完整的文本仍然会写入日志，方便需要核对细节的人查看。",
    "昨天的天气变化很快。早上天空晴朗，街道干燥，可到了中午，山上聚起了乌云。人们提着买好的东西匆匆回家。",
    "请为周四的董事会整理季度报告摘要，重点说明收入增长、客户留存情况以及工程团队的招聘计划。",
)
_EUROPEAN = ("Größe", "café", "naïve", "façade", "Ünïcödé", "Привет", "мир", "данные", "résumé", "Ελλάδα", "and", "the")


def _code(chars: int, rng: random.Random) -> str:
    lines, size = [], 0
    while size < chars:
        n = rng.randint(1, 999)
        line = (
            f"    def handle_{n}(self, request: Request) -> Response:\n"
            f'        """Fetch item {n} and return it as JSON."""\n'
            f'        response = self.client.get(f"/api/v1/items/{n}", timeout=30)\n'
            f"        if response.status_code != 200:\n"
            f'            raise HTTPError(f"item {n}: {{response.status_code}}")\n'
            f"        return response.json()\n\n"
        )
        lines.append(line)
        size += len(line)
    return "".join(lines)[:chars]


def mixed_text(chars: int, seed: int = 0) -> str:
    """Deterministic mixed tool output of exactly ``chars`` characters: blocks of 2-6 K
    characters, by share of characters about 35 % English-like prose, 30 % JSON records, 15 %
    code, 10 % Chinese prose and 10 % accented Latin, Greek and Cyrillic words."""
    rng = random.Random(seed)
    kinds = ["prose"] * 7 + ["json"] * 6 + ["code"] * 3 + ["chinese"] * 2 + ["european"] * 2
    blocks, size = [], 0
    for index in itertools.count():
        if size >= chars:
            break
        kind, block = rng.choice(kinds), rng.randint(2000, 6000)
        if kind == "prose":
            text = filler_text(block, seed=index)
        elif kind == "json":
            text = json_records(block, seed=index)
        elif kind == "code":
            text = _code(block, rng)
        elif kind == "chinese":
            text = "".join(rng.choice(_CHINESE) for _ in range(block // 40))[:block]
        else:
            text = " ".join(rng.choice(_EUROPEAN) for _ in range(block // 7))[:block]
        blocks.append(text + "\n")
        size += len(text) + 1
    return "".join(blocks)[:chars]


def load_tokens(plugin_dir: Path) -> ModuleType:
    """``agent_core/tokens.py`` of ``plugin_dir``, imported under a name of its own."""
    path = Path(plugin_dir) / "agent_core" / "tokens.py"
    spec = importlib.util.spec_from_file_location(f"_bench_tokens_{abs(hash(str(path.resolve())))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_redaction(plugin_dir: Path) -> ModuleType:
    """``agent_core/redaction.py`` of ``plugin_dir`` under a name of its own (the modules it
    imports are this checkout's)."""
    path = Path(plugin_dir) / "agent_core" / "redaction.py"
    name = f"_bench_redaction_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def random_secrets(count: int, seed: int = 0) -> list[str]:
    """``count`` random secrets of 3 to 40 letters and digits (those under 4 are not redacted)."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(3, 40))) for _ in range(count)]


def _redaction_rows(params: Params, text: str, megabytes: float, baselines: tuple[float, float],
                    estimate: int) -> list[dict[str, Any]]:
    """``redact`` of ``text`` (with one of every 50 secrets put in it, one reflowed) for each
    number of secrets: MB/s, time to build the forms, and time over the count before's (from
    some 1,000 forms on, about 70 secrets, each position of the text is looked up once whatever
    the number of forms: the time then stays flat as secrets are added)."""
    redaction = load_redaction(Plugin.default_dir)
    rows: list[dict[str, Any]] = []
    for count in params.secrets:
        secrets = random_secrets(count)
        planted = text + " ".join(s[:2] + "\n " + s[2:] if n % 2 else s for n, s in enumerate(secrets[::50]))
        started = time.perf_counter()
        forms = redaction._Secrets(secrets)
        built = time.perf_counter() - started
        seconds = _best(lambda forms=forms, planted=planted: forms.redact(planted), params.runs)
        row = _row(len(text), megabytes, f"redact ({count} secrets)", seconds, baselines,
                   _stall(lambda forms=forms, planted=planted: forms.redact(planted)), estimate)
        row["build_seconds"] = round(built, 4)
        row["vs_count_before"] = round(seconds / rows[-1]["seconds"], 2) if rows else None
        rows.append(row)
    return rows


def _forget(tokens: ModuleType) -> None:
    cached = getattr(tokens, "_estimate_long", None)
    if hasattr(cached, "cache_clear"):
        cached.cache_clear()


def _best(call: Callable[[], Any], runs: int, before: Callable[[], None] = lambda: None) -> float:
    best = float("inf")
    for _ in range(runs):
        before()
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def _python_pass(text: str) -> None:
    for _char in text:
        pass


def _stall(call: Callable[[], Any]) -> tuple[float, int]:
    """(longest time a ticking greenlet could not run during ``call``, its ticks)."""
    ticks: list[float] = []

    def ticker() -> None:
        while True:
            ticks.append(time.perf_counter())
            gevent.sleep(0)

    other = gevent.spawn(ticker)
    gevent.sleep(0)
    started = time.perf_counter()
    before = len(ticks)
    call()
    ended = time.perf_counter()
    during = ticks[before:]
    other.kill()
    moments = [started, *during, ended]
    return max(b - a for a, b in itertools.pairwise(moments)), len(during)


def _row(chars: int, megabytes: float, function: str, seconds: float, baselines: tuple[float, float],
         stall: tuple[float, int] | None, estimate: int) -> dict[str, Any]:
    length, loop = baselines
    return {
        "chars": chars,
        "megabytes": round(megabytes, 2),
        "function": function,
        "seconds": round(seconds, 5),
        "mb_per_s": round(megabytes / seconds, 1),
        "vs_len_pass": round(seconds / length, 1),
        "vs_python_pass": round(seconds / loop, 3),
        "longest_stall_ms": None if stall is None else round(stall[0] * 1000, 1),
        "yields": None if stall is None else stall[1],
        "tokens": estimate,
    }


def run(params: Params, plugin: Plugin) -> dict[str, Any]:
    tokens = load_tokens(Plugin.default_dir)
    rows = []
    for chars in params.sizes:
        text = mixed_text(chars)
        megabytes = len(text.encode("utf-8")) / 1e6
        estimate = tokens.estimate_tokens(text)
        length = _best(lambda text=text: len(text.encode("utf-8")), params.runs)
        loop = _best(lambda text=text: _python_pass(text), params.runs)
        baselines = (length, loop)
        rows.append(_row(chars, megabytes, "len(text.encode())", length, baselines, None, estimate))
        rows.append(_row(chars, megabytes, "for char in text", loop, baselines, None, estimate))
        for function, call in (
            ("estimate_tokens", lambda text=text: tokens.estimate_tokens(text)),
            (f"truncate_to_tokens({params.max_tokens})", lambda text=text: tokens.truncate_to_tokens(text, params.max_tokens)),
        ):
            seconds = _best(call, params.runs, before=lambda: _forget(tokens))
            _forget(tokens)
            rows.append(_row(chars, megabytes, function, seconds, baselines, _stall(call), estimate))
        rows += _redaction_rows(params, text, megabytes, baselines, estimate)
    return {"params": asdict(params), "rows": rows}


def table(result: dict[str, Any]) -> str:
    lines = [
        "| text | function | **MB/s** | time × `len(text.encode())` | time × Python character loop "
        "| longest stall of another greenlet ms | yields |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in result["rows"]:
        stall = "" if row["longest_stall_ms"] is None else row["longest_stall_ms"]
        yields = "" if row["yields"] is None else row["yields"]
        function = f"`{row['function']}`"
        if "build_seconds" in row:
            ratio = "" if row["vs_count_before"] is None else f"; time × the count before: **{row['vs_count_before']}**"
            function += f" (forms built in {round(row['build_seconds'] * 1000, 1)} ms{ratio})"
        lines.append(
            f"| {row['chars']:,} chars ({row['megabytes']} MB) | {function} | **{row['mb_per_s']}** | "
            f"{row['vs_len_pass']} | {row['vs_python_pass']} | {stall} | {yields} |"
        )
    p = result["params"]
    estimates = {row["chars"]: row["tokens"] for row in result["rows"]}
    lines.append(
        "\nMixed text (`tokens_speed.mixed_text`: prose, JSON, code, Chinese, accented words); best of "
        f"{p['runs']}; estimates: " + ", ".join(f"{chars:,} chars -> {tokens:,} tokens" for chars, tokens in estimates.items())
        + ". Longest stall: the longest time another greenlet could not run during the call. `redact`: the "
        "text with every 50th secret put in it (every other one broken across lines), the forms built once."
    )
    return "\n".join(lines)
