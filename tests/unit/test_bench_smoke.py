"""Smoke test of the benchmarks (bench/): every benchmark runs end to end with minimal sizes
against the real plugin process, results are saved as JSON and rendered as Markdown.

Keeps the benchmark code working; it asserts nothing about timings (this is no benchmark).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import report
from bench.__main__ import main
from bench.registry import BENCHMARKS

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the benchmarks read /proc (Linux only)"),
    pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    assert main(["--smoke", "--out", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_every_benchmark_ran_and_saved_its_result(results: dict) -> None:
    assert list(results["benchmarks"]) == list(BENCHMARKS)
    for name, entry in results["benchmarks"].items():
        assert entry["result"]["rows"], name
        assert entry["machine"]["nproc"] >= 1


def test_numbers_are_present(results: dict) -> None:
    benchmarks = results["benchmarks"]
    overhead = benchmarks["overhead"]["result"]["rows"]
    assert all(row["wall_ms"] is not None and row["plugin_cpu_ms"] is not None for row in overhead)
    parallel = benchmarks["parallel"]["result"]["rows"]
    assert [row["calls"] for row in parallel] == list(BENCHMARKS["parallel"].SMOKE.call_counts)
    assert all(row["ratio"] > 0 for row in parallel)
    prompt = benchmarks["prompt_size"]["result"]["rows"]
    assert all(len(row["tokens_per_round"]) == BENCHMARKS["prompt_size"].SMOKE.rounds for row in prompt)
    assert all(row["react_system_tokens"] > 0 for row in benchmarks["react_prompt"]["result"]["rows"])
    assert all(row["hwm_end_mb"] > 0 for row in benchmarks["scale"]["result"]["rows"])
    assert all(row["first_text_ms"] is not None for row in benchmarks["streaming"]["result"]["rows"])
    assert all(row["worst_gap_loaded_ms"] is not None for row in benchmarks["concurrency"]["result"]["rows"])
    speed = benchmarks["tokens_speed"]["result"]["rows"]
    assert {row["function"] for row in speed} >= {"estimate_tokens", "len(text.encode())"}
    assert all(row["mb_per_s"] > 0 and row["tokens"] > 0 for row in speed)
    long_lived = benchmarks["long_lived"]["result"]
    assert all(row["rss_kb"] > 0 for row in long_lived["rows"]) and long_lived["growth"] > 0
    assert long_lived["problems"] == []
    lines = benchmarks["sdk_lines"]["result"]["rows"]
    assert [row["line"].split(":")[0] for row in lines] == ["read", "write", "write", "write"]
    assert all(row["sdk_us"] > 0 and row["plugin_us"] > 0 for row in lines)


def test_tables_render_into_a_readme(results: dict, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Benchmarks\n\nfindings\n\n{report.START}\nold\n{report.END}\n\ntail\n", encoding="utf-8")
    report.update_readme(results, readme)
    text = readme.read_text(encoding="utf-8")
    assert "old" not in text and text.startswith("# Benchmarks\n\nfindings") and text.rstrip().endswith("tail")
    for module in BENCHMARKS.values():
        assert module.TITLE in text


def _assert_ratio_rows(printed: str, first: int) -> None:
    """Both strategies have a row whose cells ``first``, ``first + 1`` and ``first + 2`` are this
    plugin's number, the baseline's and their ratio."""
    rows = [line for line in printed.splitlines() if line.startswith("| function_calling") or line.startswith("| ReAct")]
    assert len(rows) == 2
    for row in rows:
        cells = [cell.strip(" *") for cell in row.strip("|").split("|")]
        this, baseline, ratio = float(cells[first]), float(cells[first + 1]), float(cells[first + 2])
        assert this > 0 and baseline > 0 and ratio == pytest.approx(this / baseline, abs=0.01)


def test_compare_runs_two_plugins_side_by_side(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import compare

    assert compare.main([".", "--smoke", "--completion-params", "{}"]) == 0
    _assert_ratio_rows(capsys.readouterr().out, first=3)


def test_inprocess_times_the_strategy_with_the_daemon_answers_from_memory(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import inprocess

    assert inprocess.main([".", "--smoke"]) == 0
    _assert_ratio_rows(capsys.readouterr().out, first=2)


def test_inprocess_counts_the_calls_of_a_round_of_this_plugin_and_another(capsys: pytest.CaptureFixture[str]) -> None:
    """``--calls``: one replay of each folder counted, the same run twice giving the same counts."""
    from bench import inprocess

    assert inprocess.main([".", "--smoke", "--calls", "--top", "3"]) == 0
    out = capsys.readouterr().out
    rows = [line.split("|")[3:7] for line in out.splitlines() if line.startswith(("| function_calling", "| ReAct"))]
    assert len(rows) == 2
    for this_python, this_all, other_python, other_all in rows:
        counts = [float(value.replace(",", "")) for value in (this_python, this_all, other_python, other_all)]
        assert 0 < counts[0] < counts[1] and 0 < counts[2] < counts[3]
        assert abs(counts[0] - counts[2]) <= 0.02 * counts[0]  # one plugin, counted twice
    assert "Python calls per round" in out
