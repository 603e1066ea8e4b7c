"""Build the plugin's ``.difypkg`` the way ``dify plugin package`` does.

Usage::

    python -m tools.package [plugin_dir] [-o dist/robust_agent-<version>.difypkg] [--max-size MB]

A ``.difypkg`` is a plain zip of the plugin folder, paths relative to the root and
``manifest.yaml`` at the top (docs/protocol-notes.md §6). Like the Dify CLI this tool:

* skips what ``.difyignore`` lists (or ``.gitignore`` when there is no ``.difyignore``),
  matching patterns the way the CLI's go-git matcher does: a pattern without ``/`` matches a
  name at any depth, a leading ``/`` anchors it, a trailing ``/`` means folders only, ``*``,
  ``?``, ``[...]`` and ``**`` glob — and a ``!`` negation never re-includes anything, because
  the CLI skips a path at the first pattern that excludes it;
* refuses when the total **uncompressed** size exceeds the limit (default 50 MB, the
  daemon's ``MAX_PLUGIN_PACKAGE_SIZE``), naming the five largest files.

One difference from the CLI: the package's ``README.md``, which Dify shows on the plugin's
page, is the user's README ``PLUGIN_README.md`` (``USER_README``), while the repository's
``README.md`` stays the developers' entry. Both sit at the repository root, so a relative link
means the same file in the repository and in the package.

On top of that it refuses when ``tools.manifest_check`` finds problems (among them a link of a
packaged Markdown file that names no packaged file, and a README image outside ``_assets/``),
when a file the plugin needs would be left out (manifest, entrypoint, requirements, every
provider and strategy YAML and Python source, icons, README, privacy policy), and when
something that must never ship would be included (``.env``, ``*.pem`` keys, ``.git``,
``.venv/``, tests, dev tools). The zip is reproducible: sorted entries, fixed timestamps.
Details and the reasons behind them: docs/packaging.md.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tools.manifest_check import check_plugin, missing_targets

MAX_SIZE = 50 * 1024 * 1024  # bytes, uncompressed (dify CLI --max-size default; daemon limit)
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so that the same tree gives the same bytes
NEVER_SHIP = (".env", ".env.*", "*.pem", "*.difypkg", "/.git", ".venv/", "/tests/", "/tools/", "/local_runner/")
PROJECT_ROOT = Path(__file__).resolve().parents[1]
USER_README = "PLUGIN_README.md"
"""The README Dify shows on the plugin's page: packaged as ``README.md`` in place of the
repository's developer README. ``.difyignore`` leaves it out under its own name, so that
``dify plugin package`` (which ships the developers' README) does not ship it twice."""


class PackageError(Exception):
    """The package cannot (or must not) be built; the message says why."""


# --------------------------------------------------------------------------- ignore rules


@functools.lru_cache(maxsize=512)
def _segment_regex(glob: str) -> re.Pattern[str]:
    """Compile one path-segment glob: ``*``, ``?``, ``[a-z]``/``[!a]``, ``\\x`` escapes."""
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        if char == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        if char == "[" and (end := glob.find("]", i + 2)) != -1:
            body = glob[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        out.append({"*": ".*", "?": "."}.get(char) or re.escape(char))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def _wild(glob: str, name: str) -> bool:
    return _segment_regex(glob).fullmatch(name) is not None


@dataclass(frozen=True)
class IgnorePattern:
    """One ``.difyignore`` line, matched like go-git's ``gitignore.Pattern``.

    Attributes:
        segments: the pattern split on ``/`` (a leading ``""`` means anchored at the root).
        negated: the line started with ``!`` (kept only to warn: it never re-includes).
        dir_only: the line ended with ``/``.
        is_path: the pattern contains ``/``, so it is matched segment by segment from the root.
    """

    segments: tuple[str, ...]
    negated: bool = False
    dir_only: bool = False
    is_path: bool = False

    @classmethod
    def parse(cls, line: str) -> IgnorePattern | None:
        """``"/tests/" -> IgnorePattern(("", "tests"), dir_only=True, is_path=True)``; None for blanks/comments."""
        line = line.strip()
        if not line or line.startswith("#"):
            return None
        negated = line.startswith("!")
        line = line[1:] if negated else line
        dir_only = line.endswith("/")
        line = line[:-1] if dir_only else line
        return cls(tuple(line.split("/")), negated, dir_only, "/" in line)

    def excludes(self, parts: Sequence[str], is_dir: bool) -> bool:
        """Whether this pattern excludes the path ``parts`` (``("agent_core", "x.py")``)."""
        if self.negated or not parts:
            return False
        if self.is_path:
            return self._path_match(list(parts), is_dir)
        return self._name_match(parts, is_dir)

    def _name_match(self, parts: Sequence[str], is_dir: bool) -> bool:
        for index, name in enumerate(parts):
            if _wild(self.segments[0], name):
                return not (self.dir_only and not is_dir and index == len(parts) - 1)
        return False

    def _path_match(self, path: list[str], is_dir: bool) -> bool:
        matched = traverse = trailing = False
        last = len(self.segments) - 1
        for index, segment in enumerate(self.segments):
            if segment == "":
                traverse = False
                continue
            if segment == "**":
                if index == last:
                    matched = trailing = bool(path) or is_dir
                    break
                traverse = True
                continue
            if not path:
                return False
            if traverse:
                traverse = False
                while path:
                    name = path.pop(0)
                    if _wild(segment, name):
                        matched = True
                        break
                    if not path:
                        return False
            else:
                if not _wild(segment, path[0]):
                    return False
                path = path[1:]
                matched = bool(path) or index == last
        if matched and (not path or trailing) and self.dir_only and not is_dir:
            return False
        return matched


@dataclass(frozen=True)
class IgnoreRules:
    """The patterns of one ignore file, in order."""

    patterns: tuple[IgnorePattern, ...]

    @classmethod
    def parse(cls, text: str) -> IgnoreRules:
        found = (IgnorePattern.parse(line) for line in text.split("\n"))
        return cls(tuple(pattern for pattern in found if pattern is not None))

    @classmethod
    def for_plugin(cls, root: Path) -> IgnoreRules:
        """``.difyignore``, else ``.gitignore``, else nothing — the CLI's order."""
        for name in (".difyignore", ".gitignore"):
            if (root / name).is_file():
                return cls.parse((root / name).read_text(encoding="utf-8"))
        return cls(())

    def excludes(self, rel: str, is_dir: bool) -> bool:
        """``rel`` is a POSIX path relative to the plugin root."""
        parts = rel.split("/")
        return any(pattern.excludes(parts, is_dir) for pattern in self.patterns)

    def warnings(self) -> list[str]:
        return [
            f"'!{'/'.join(p.segments)}' has no effect: dify plugin package never re-includes a path"
            for p in self.patterns
            if p.negated
        ]


# --------------------------------------------------------------------------- collecting


def collect_files(root: Path, rules: IgnoreRules, skip: Iterable[Path] = ()) -> list[tuple[str, Path]]:
    """Files to package as sorted ``(relative POSIX path, absolute path)`` pairs.

    Ignored folders are not descended into (as the CLI does); ``skip`` removes specific
    files, e.g. the output package when it is written inside the plugin folder.
    """
    skipped = {path.resolve() for path in skip}
    files: list[tuple[str, Path]] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        base = Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if not rules.excludes(prefix + d, is_dir=True))
        for name in dirs:
            if (Path(folder) / name).is_symlink():
                raise PackageError(f"{prefix}{name}: symlinked folders cannot be packaged")
        for name in sorted(names):
            full = Path(folder) / name
            if not rules.excludes(prefix + name, is_dir=False) and full.resolve() not in skipped:
                files.append((prefix + name, full))
    return sorted(files)


def _load(root: Path, rel: str) -> dict[str, Any]:
    data = yaml.safe_load((root / rel).read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def required_paths(root: Path) -> set[str]:
    """Paths the installed plugin needs, read from the (already checked) YAMLs."""
    manifest = _load(root, "manifest.yaml")
    meta_runner = manifest.get("meta", {}).get("runner", {})
    needed = {"manifest.yaml", "requirements.txt", "README.md", f"{meta_runner.get('entrypoint', 'main')}.py"}
    needed |= {f"_assets/{manifest[key]}" for key in ("icon", "icon_dark") if manifest.get(key)}
    if not str(manifest.get("privacy", "")).startswith(("http://", "https://")):
        needed.add(str(manifest.get("privacy")))
    for provider_rel in manifest.get("plugins", {}).get("agent_strategies", []):
        needed |= _provider_paths(root, provider_rel)
    return needed


def _provider_paths(root: Path, provider_rel: str) -> set[str]:
    provider = _load(root, provider_rel)
    identity = provider.get("identity", {})
    needed = {provider_rel, provider.get("extra", {}).get("python", {}).get("source", "")}
    needed |= {f"_assets/{identity[key]}" for key in ("icon", "icon_dark") if identity.get(key)}
    for strategy_rel in provider.get("strategies", []):
        strategy = _load(root, strategy_rel)
        needed |= {strategy_rel, strategy.get("extra", {}).get("python", {}).get("source", "")}
    return needed - {""}


def _check_contents(root: Path, files: list[tuple[str, Path]]) -> None:
    """Refuse a package that lacks a needed file or holds one that must never ship."""
    names = {rel for rel, _ in files}
    missing = sorted(required_paths(root) - names)
    if missing:
        raise PackageError(f"these needed files would be left out (check .difyignore): {', '.join(missing)}")
    guard = IgnoreRules.parse("\n".join(NEVER_SHIP))
    leaked = sorted(rel for rel in names if _excluded_anywhere(guard, rel))
    if leaked:
        raise PackageError(f"these files must never ship (fix .difyignore): {', '.join(leaked[:10])}")


def _excluded_anywhere(rules: IgnoreRules, rel: str) -> bool:
    """Whether ``rel`` or any folder above it is excluded by ``rules``."""
    parts = rel.split("/")
    return any(rules.excludes("/".join(parts[: i + 1]), is_dir=i < len(parts) - 1) for i in range(len(parts)))


def _check_size(files: list[tuple[str, Path]], max_size: int) -> int:
    """Total uncompressed bytes; PackageError naming the 5 largest files when over ``max_size``."""
    sizes = [(full.stat().st_size, rel) for rel, full in files]
    total = sum(size for size, _ in sizes)
    if total > max_size:
        top = "\n".join(f"  {size:>12,} B  {rel}" for size, rel in sorted(sizes, reverse=True)[:5])
        raise PackageError(
            f"plugin is {total:,} bytes uncompressed, over the {max_size:,}-byte limit; largest files:\n{top}"
        )
    return total


# --------------------------------------------------------------------------- writing


def _zip_info(rel: str, full: Path) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(rel, date_time=ZIP_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    mode = 0o755 if os.access(full, os.X_OK) else 0o644
    info.external_attr = (0o100000 | mode) << 16
    return info


def write_zip(files: list[tuple[str, Path]], output: Path) -> int:
    """Write ``files`` to ``output`` atomically (temp file, then rename); returns its size."""
    output.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=".difypkg-", dir=output.parent)
    os.close(handle)
    try:
        with zipfile.ZipFile(temp_name, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            for rel, full in files:
                archive.writestr(_zip_info(rel, full), full.read_bytes())
        os.replace(temp_name, output)
    finally:
        Path(temp_name).unlink(missing_ok=True)
    return output.stat().st_size


@dataclass(frozen=True)
class PackageResult:
    """What ``build_package`` wrote.

    Attributes:
        path: the .difypkg file.
        files: number of files in it.
        uncompressed_size / compressed_size: bytes.
        warnings: notes that did not stop the build (e.g. ineffective ``!`` patterns).
    """

    path: Path
    files: int
    uncompressed_size: int
    compressed_size: int
    warnings: tuple[str, ...] = ()


def with_user_readme(root: Path, files: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """``files`` with the user's README (``USER_README``) packaged as ``README.md`` (unchanged
    when the plugin has no such file: its own ``README.md`` is then the one shipped)."""
    user = root / USER_README
    if not user.is_file():
        return files
    kept = [(rel, full) for rel, full in files if rel not in ("README.md", USER_README)]
    return sorted([*kept, ("README.md", user)])


def dangling_links(files: list[tuple[str, Path]]) -> list[str]:
    """Relative links in the packaged Markdown files that name no packaged file
    (``"README.md: docs/x.md"``); web links, anchors and mail links are not checked."""
    names = {rel for rel, _ in files}
    found = []
    for rel, full in files:
        if rel.lower().endswith((".md", ".markdown")):
            found += [f"{rel}: {target}" for target in missing_targets(full.read_text(encoding="utf-8"), rel, names)]
    return found


def default_output(root: Path) -> Path:
    """``<root>/dist/<name>-<version>.difypkg`` from the manifest."""
    manifest = _load(root, "manifest.yaml")
    return root / "dist" / f"{manifest.get('name', 'plugin')}-{manifest.get('version', '0.0.0')}.difypkg"


def build_package(
    plugin_dir: str | Path = PROJECT_ROOT,
    output: str | Path | None = None,
    *,
    max_size: int = MAX_SIZE,
    check: bool = True,
) -> PackageResult:
    """Check, collect and zip the plugin.

    Args:
        plugin_dir: the plugin folder (holds manifest.yaml).
        output: the .difypkg to write; default ``default_output(plugin_dir)``.
        max_size: limit on the total uncompressed size, in bytes.
        check: run ``tools.manifest_check`` first and refuse on problems.

    Raises:
        PackageError: a check failed; nothing was written.
    """
    root = Path(plugin_dir).resolve()
    if check and (problems := check_plugin(root)):
        raise PackageError("manifest check failed:\n" + "\n".join(f"  {p}" for p in problems))
    out = Path(output).resolve() if output is not None else default_output(root)
    rules = IgnoreRules.for_plugin(root)
    files = with_user_readme(root, collect_files(root, rules, skip=[out]))
    _check_contents(root, files)
    if check and (dangling := dangling_links(files)):
        raise PackageError("links that do not resolve inside the package:\n" + "\n".join(f"  {d}" for d in dangling))
    total = _check_size(files, max_size)
    compressed = write_zip(files, out)
    return PackageResult(out, len(files), total, compressed, tuple(rules.warnings()))


def main(argv: Sequence[str] | None = None) -> int:
    """CLI; exit status 1 when the package is refused."""
    parser = argparse.ArgumentParser(prog="python -m tools.package", description=__doc__.split("\n\n")[0])
    parser.add_argument("plugin_dir", nargs="?", default=str(PROJECT_ROOT), help="plugin folder (default: this repo)")
    parser.add_argument("-o", "--output", help="output .difypkg (default: dist/<name>-<version>.difypkg)")
    parser.add_argument("--max-size", type=float, default=MAX_SIZE / 1024 / 1024, help="limit in MB (default 50)")
    args = parser.parse_args(argv)
    limit = int(args.max_size * 1024 * 1024)
    try:
        result = build_package(args.plugin_dir, args.output, max_size=limit)
    except PackageError as exc:
        print(f"package refused: {exc}", file=sys.stderr)
        return 1
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"{result.path}: {result.files} files, {result.uncompressed_size:,} bytes uncompressed "
        f"({result.uncompressed_size / limit:.1%} of the {args.max_size:g} MB limit), "
        f"{result.compressed_size:,} bytes compressed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
