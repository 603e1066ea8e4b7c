"""tools.package: the .difypkg layout, what it leaves out, the refusals, the size limit.

Most tests package a copy of the repository (without .venv/.git, plus planted files that
must never ship), so they test the packager rather than how complete the plugin is;
``test_real_plugin_packages`` packages the repository itself, checks included.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from tools.manifest_check import check_plugin, link_targets, misplaced_images, missing_targets
from tools.package import USER_README, IgnoreRules, PackageError, build_package, default_output

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))

# Planted in the copy; none of these may end up in the package.
PLANTED = {
    ".env": "REMOTE_INSTALL_KEY=secret\n",
    "my_key.private.pem": "-----BEGIN PRIVATE KEY-----\n",
    ".venv/lib/site.py": "",
    ".git/config": "",
    "agent_core/__pycache__/loop.cpython-312.pyc": "",
    "dist/old.difypkg": "",
    "local_runner/planted.py": "",
    "tests/planted_test.py": "",
    "tools/planted.py": "",
    "docs/planted.md": "",
    "requirements-dev.txt": "pytest\n",
}
MUST_SHIP = [
    "manifest.yaml", "main.py", "requirements.txt", "README.md", "PRIVACY.md",
    "_assets/icon.svg", "_assets/icon_dark.svg", "provider/agent.yaml", "provider/agent.py",
    "agent_core/__init__.py", "strategies/function_calling.yaml", "strategies/function_calling.py",
]
NEVER_SHIP_PREFIXES = ("tests/", "tools/", "local_runner/", ".venv/", ".git/", "docs/", "dist/", "bench/", "scenarios/")


def _copy_repo(dest: Path) -> Path:
    """The repository without .venv/.git/dist, plus the PLANTED files (and a stub README if absent)."""
    skip = shutil.ignore_patterns(".venv", ".git", "dist", "__pycache__", ".pytest_cache", "*.gguf", "*.safetensors")
    shutil.copytree(ROOT, dest, ignore=skip)
    if not (dest / "README.md").is_file():
        (dest / "README.md").write_text("# Robust Agent (stub for the packaging tests)\n", encoding="utf-8")
    for rel, text in PLANTED.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text, encoding="utf-8")
    return dest


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy_repo(tmp_path_factory.mktemp("repo") / "plugin")


@pytest.fixture(scope="module")
def package(repo_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_package(repo_copy, tmp_path_factory.mktemp("out") / "robust_agent.difypkg", check=False).path


@pytest.fixture(scope="module")
def names(package: Path) -> list[str]:
    with zipfile.ZipFile(package) as archive:
        return archive.namelist()


@pytest.fixture(scope="module")
def unpacked(package: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(package) as archive:
        archive.extractall(target)
    return target


@pytest.fixture
def own_copy(tmp_path: Path) -> Path:
    """A copy this test may break."""
    return _copy_repo(tmp_path / "plugin")


# --------------------------------------------------------------------------- layout


def test_manifest_at_root_and_paths_relative(names: list[str]) -> None:
    assert "manifest.yaml" in names
    assert all(not n.startswith(("/", "./")) and "\\" not in n and ".." not in n.split("/") for n in names)
    assert names == sorted(names)


@pytest.mark.parametrize("rel", MUST_SHIP)
def test_plugin_code_is_packaged(names: list[str], rel: str) -> None:
    assert rel in names


def test_all_plugin_code_is_packaged(repo_copy: Path, names: list[str]) -> None:
    for folder in ("agent_core", "strategies", "provider", "_assets"):
        expected = {p.relative_to(repo_copy).as_posix() for p in (repo_copy / folder).rglob("*") if p.is_file()}
        expected = {n for n in expected if "__pycache__" not in n}
        assert expected <= set(names), expected - set(names)


def test_dev_files_and_secrets_left_out(names: list[str]) -> None:
    leaked = [n for n in names if n.startswith(NEVER_SHIP_PREFIXES)]
    leaked += [n for n in names if Path(n).name.startswith(".env") or n.endswith((".pyc", ".difypkg", ".pem"))]
    leaked += [n for n in names if "__pycache__" in n or n.startswith("requirements-")]
    assert leaked == []


def test_unpacked_manifest_passes_checks_and_sdk(unpacked: Path) -> None:
    from dify_plugin.core.entities.plugin.setup import PluginConfiguration

    assert check_plugin(unpacked) == []
    config = PluginConfiguration(**yaml.safe_load((unpacked / "manifest.yaml").read_text(encoding="utf-8")))
    assert (config.name, config.version) == (MANIFEST["name"], MANIFEST["version"])


def test_unpacked_plugin_starts_in_the_sdk(unpacked: Path) -> None:
    """What the daemon's runtime does first: load every declaration and strategy class."""
    script = (
        "from dify_plugin.config.config import DifyPluginEnv\n"
        "from dify_plugin.core.plugin_registration import PluginRegistration\n"
        "reg = PluginRegistration(DifyPluginEnv())\n"
        "print(sorted(name for _, s in reg.agent_strategies_mapping.values() for name in s))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=unpacked, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "function_calling" in result.stdout


def test_reproducible(repo_copy: Path, package: Path, tmp_path: Path) -> None:
    again = build_package(repo_copy, tmp_path / "again.difypkg", check=False).path
    assert again.read_bytes() == package.read_bytes()


def test_default_output_name(repo_copy: Path) -> None:
    expected = repo_copy / "dist" / f"{MANIFEST['name']}-{MANIFEST['version']}.difypkg"
    assert default_output(repo_copy) == expected


# --------------------------------------------------------------------------- refusals


def test_size_limit(repo_copy: Path, tmp_path: Path) -> None:
    out = tmp_path / "big.difypkg"
    with pytest.raises(PackageError, match=r"over the 1,000-byte limit"):
        build_package(repo_copy, out, max_size=1000, check=False)
    assert not out.exists()
    assert build_package(repo_copy, out, max_size=10 * 1024 * 1024, check=False).uncompressed_size <= 10 * 1024 * 1024


def test_refuses_on_manifest_problems(own_copy: Path, tmp_path: Path) -> None:
    text = (own_copy / "manifest.yaml").read_text(encoding="utf-8")
    (own_copy / "manifest.yaml").write_text(text.replace("type: plugin", "type: tool"), encoding="utf-8")
    with pytest.raises(PackageError, match=r"manifest check failed:[\s\S]*manifest.yaml:type"):
        build_package(own_copy, tmp_path / "x.difypkg")


def test_refuses_when_a_needed_file_is_ignored(own_copy: Path, tmp_path: Path) -> None:
    with (own_copy / ".difyignore").open("a", encoding="utf-8") as handle:
        handle.write("\n/strategies/\n")
    with pytest.raises(PackageError, match=r"left out.*strategies/function_calling.yaml"):
        build_package(own_copy, tmp_path / "x.difypkg", check=False)


def test_refuses_to_ship_secrets(own_copy: Path, tmp_path: Path) -> None:
    ignore = own_copy / ".difyignore"
    kept = [line for line in ignore.read_text(encoding="utf-8").splitlines() if not line.startswith(".env")]
    ignore.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(PackageError, match=r"never ship.*\.env"):
        build_package(own_copy, tmp_path / "x.difypkg", check=False)


def test_a_git_file_of_a_worktree_is_left_out(own_copy: Path, tmp_path: Path) -> None:
    """A worktree or submodule checkout has a `.git` file, not a folder, naming a path outside the
    plugin: it never ships, and the guard refuses it when the ignore file lets it through."""
    shutil.rmtree(own_copy / ".git")
    (own_copy / ".git").write_text("gitdir: /elsewhere/.git/worktrees/plugin\n", encoding="utf-8")
    with zipfile.ZipFile(build_package(own_copy, tmp_path / "a.difypkg", check=False).path) as archive:
        assert ".git" not in archive.namelist()
    ignore = own_copy / ".difyignore"
    kept = [line for line in ignore.read_text(encoding="utf-8").splitlines() if not line.startswith("/.git")]
    ignore.write_text("\n".join(kept) + "\n", encoding="utf-8")
    with pytest.raises(PackageError, match=r"never ship.*\.git"):
        build_package(own_copy, tmp_path / "b.difypkg", check=False)


def test_gitignore_is_the_fallback(own_copy: Path) -> None:
    (own_copy / ".difyignore").unlink()
    (own_copy / ".gitignore").write_text("secret.txt\n", encoding="utf-8")
    rules = IgnoreRules.for_plugin(own_copy)
    assert rules.excludes("secret.txt", is_dir=False)


# --------------------------------------------------------------------------- ignore rules


@pytest.mark.parametrize(
    ("pattern", "rel", "is_dir", "excluded"),
    [
        ("/tests/", "tests", True, True),
        ("/tests/", "agent_core/tests", True, False),
        ("/tests/", "tests", False, False),
        ("__pycache__/", "agent_core/__pycache__", True, True),
        ("__pycache__/", "agent_core/__pycache__", False, False),
        ("*.py[cod]", "agent_core/loop.pyc", False, True),
        ("*.py[cod]", "agent_core/loop.py", False, False),
        (".env", "sub/.env", False, True),
        (".env.*", ".env.example", False, True),
        (".env.*", "env.example", False, False),
        ("/requirements-*.txt", "requirements-dev.txt", False, True),
        ("/requirements-*.txt", "requirements.txt", False, False),
        ("docs/**/*.md", "docs/a/b/c.md", False, True),
        ("docs/**/*.md", "docs/c.md", False, True),
        ("docs/**/*.md", "other/c.md", False, False),
        ("a/b", "a/b/c.txt", False, True),
        ("a\\*b", "a*b", False, True),
        ("a\\*b", "axb", False, False),
        ("file?.txt", "file1.txt", False, True),
        ("!README.md", "README.md", False, False),
        ("# comment", "# comment", False, False),
    ],
)
def test_ignore_pattern(pattern: str, rel: str, is_dir: bool, excluded: bool) -> None:
    assert IgnoreRules.parse(pattern).excludes(rel, is_dir=is_dir) is excluded


def test_negation_warns_and_never_reincludes() -> None:
    rules = IgnoreRules.parse("docs/\n!docs/keep.md\n")
    assert rules.excludes("docs", is_dir=True)
    assert any("never re-includes" in w for w in rules.warnings())


def test_repo_difyignore_uses_no_negation() -> None:
    assert IgnoreRules.for_plugin(ROOT).warnings() == []


# --------------------------------------------------------------------------- CLI and the real plugin


@pytest.mark.parametrize(("extra", "status", "output"), [([], 0, "files,"), (["--max-size", "0.001"], 1, "over the")])
def test_cli(repo_copy: Path, tmp_path: Path, extra: list[str], status: int, output: str) -> None:
    out = tmp_path / "cli.difypkg"
    result = subprocess.run(
        [sys.executable, "-m", "tools.package", str(repo_copy), "-o", str(out), *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == status, result.stdout + result.stderr
    assert output in result.stdout + result.stderr
    assert out.exists() == (status == 0)


def test_real_plugin_packages(tmp_path: Path) -> None:
    """The repository as it stands passes every check and packages."""
    result = build_package(ROOT, tmp_path / "real.difypkg")
    assert result.files >= len(MUST_SHIP)
    assert result.uncompressed_size < 50 * 1024 * 1024


def test_the_packaged_readme_is_the_users_and_its_links_resolve(unpacked: Path, names: list[str]) -> None:
    readme = (unpacked / "README.md").read_text(encoding="utf-8")
    assert readme == (ROOT / USER_README).read_text(encoding="utf-8")
    assert "pytest" not in readme and ".venv" not in readme  # not the developers' README
    for section in ("Which strategy?", "Parameters", "Limits you should know", "What the agent log shows",
                    "Works with", "Installing", "Privacy"):
        assert f"## {section}" in readme
    targets = [target for target, _ in link_targets(readme) if not target.startswith(("http://", "https://", "#"))]
    assert targets, "the README links to the privacy policy and shows the log tree"
    assert all(target in names for target in targets), [t for t in targets if t not in names]
    assert missing_targets(readme, "README.md", set(names)) == []
    assert misplaced_images(readme) == []
    assert USER_README not in names, "shipped once, as README.md"


def test_the_real_package_ships_the_users_readme_and_its_picture(tmp_path: Path) -> None:
    """The repository itself, packaged with every check: README.md is the user's README, each
    relative link in every packaged Markdown file resolves inside the zip, and the picture of
    the log tree is a PNG Dify can show (under _assets/)."""
    package = build_package(ROOT, tmp_path / "real.difypkg").path
    with zipfile.ZipFile(package) as archive:
        names = set(archive.namelist())
        readme = archive.read("README.md").decode("utf-8")
        markdown = {name: archive.read(name).decode("utf-8") for name in names if name.endswith(".md")}
        images = [target for target, is_image in link_targets(readme) if is_image]
        assert images and all(archive.read(image)[:8] == b"\x89PNG\r\n\x1a\n" for image in images)
    assert readme == (ROOT / USER_README).read_text(encoding="utf-8")
    for name, text in markdown.items():
        assert missing_targets(text, name, names) == [], name
    assert all(image.startswith("_assets/") for image in images)


def test_the_log_tree_picture_shows_every_entry_the_readme_names() -> None:
    """The picture was rendered from a real run (docs/packaging.md says how); the README's text
    tree and the picture's alt text name the same entries."""
    readme = (ROOT / USER_README).read_text(encoding="utf-8")
    (alt,) = re.findall(r"!\[([^\]]*)\]\(_assets/log-tree\.png\)", readme)
    text_tree = readme.split("```\n", 2)[1]
    for entry in ("ROUND 1", "Thought", "CALL", "ITERATION LIMIT", "FINAL ANSWER"):
        assert entry in alt and entry in text_tree


def test_the_works_with_table_lists_every_provider_of_docs_providers() -> None:
    """The user's README cannot link docs/providers.md (docs/ is not packaged), so it carries its
    own table: it must name every model plugin the developers' table verifies."""

    def plugins(text: str) -> set[str]:
        rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| model plugin")]
        return {re.split(r" \(|\s*\|", row[2:], maxsplit=1)[0].strip() for row in rows if not row.startswith("|--")}

    providers = (ROOT / "docs" / "providers.md").read_text(encoding="utf-8")
    matrix = providers.split("\n| model plugin (model) |", 1)[1].split("\n\n", 1)[0]  # the verified table
    verified = plugins(matrix)
    readme = (ROOT / USER_README).read_text(encoding="utf-8")
    works_with = readme.split("## Works with", 1)[1].split("\n## ", 1)[0]
    assert verified and verified <= plugins(works_with), verified - plugins(works_with)


@pytest.mark.parametrize(
    ("rel", "addition", "target"),
    [
        (USER_README, "\nSee [the table](docs/providers.md).\n", "docs/providers.md"),
        (USER_README, "\n[providers]: docs/providers.md\n", "docs/providers.md"),
        (USER_README, '\n<img src="_assets/nope.png" alt="x">\n', "_assets/nope.png"),
        ("PRIVACY.md", "\nSee [the tests](../tests/unit/test_package.py).\n", "../tests/unit/test_package.py"),
    ],
    ids=["inline-link", "reference-link", "html-image", "other-markdown"],
)
def test_manifest_check_fails_on_a_dangling_link(own_copy: Path, rel: str, addition: str, target: str) -> None:
    path = own_copy / rel
    path.write_text(path.read_text(encoding="utf-8") + addition, encoding="utf-8")
    problems = [str(p) for p in check_plugin(own_copy)]
    assert any(target in p and "names no file in the package" in p for p in problems), problems
    with pytest.raises(PackageError, match="manifest check failed"):
        build_package(own_copy, own_copy / "out.difypkg")


def test_a_readme_image_outside_assets_is_refused(own_copy: Path) -> None:
    shutil.copy(own_copy / "_assets" / "log-tree.png", own_copy / "tree.png")
    with (own_copy / USER_README).open("a", encoding="utf-8") as handle:
        handle.write("\n![tree](tree.png)\n")
    problems = [str(p) for p in check_plugin(own_copy)]
    assert any("'tree.png' is not under _assets/" in p for p in problems), problems


def test_links_in_code_are_not_links() -> None:
    text = "Run `[x](nowhere.md)`.\n\n```\n![y](nowhere.png)\n```\n[ok](PRIVACY.md) ![pic](./_assets/a.png)\n"
    assert link_targets(text) == [("PRIVACY.md", False), ("./_assets/a.png", True)]
    assert missing_targets(text, "README.md", {"PRIVACY.md", "_assets/a.png"}) == []
    assert missing_targets("[up](../x.md) [web](https://x.test) [top](#parameters)", "README.md", set()) == ["../x.md"]
