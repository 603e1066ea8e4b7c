"""``python -m bench.redaction_pieces [DIR ...]``: the CPU time the chat's secret guard
(``outbound.TextHold``) takes for each streamed piece when every piece is one character, with 1,
2 or 3 secrets of 16 to 64 characters, on three answers: one that keeps writing a start of a
secret with every character escaped and zero-padded (``&#x000000000000053;``), never finishing it
(a start may be held back at every piece), one that repeats a secret's start less its last
character, and plain prose. Each folder (a checkout of the plugin; this one when none is given)
is measured in a process of its own; times are that process's CPU time (``time.process_time``),
best of three, so compare folders by their ratio, measured together.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SECRETS = {
    1: ["SECRET-CANARY-35e7f1ab"],
    2: ["sk-live-9f8e7d6c5b4a3f2e1d0c", "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"],
    3: ["tok16-abcdefghij", "XXXXXXXXk2j3h4g5f6d7s8a9QQQQQQQQp0o9i8u7y6t5r4e3w2q1z0x9c8v7b6n5m4", "pass-phrase-64-" + "z" * 49],
}

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from agent_core.outbound import TextHold
from agent_core.redaction import secret_forms
secrets_sets = json.loads(sys.argv[2])
out = {}
for n, secrets in secrets_sets.items():
    first = secrets[0]
    texts = {
        "padded escapes": ("".join(f"&#x{'0' * 12}{ord(c):x};" for c in first[:-1]) + " and so on. ") * 3,
        "prefix runs": (first[:-1] + " ") * 40,
        "plain": "The answer is plain text. " * 40,
    }
    forms = secret_forms(secrets)
    for name, text in texts.items():
        best = None
        for _ in range(3):
            hold, start = TextHold(forms), time.process_time()
            for char in text:
                hold.add(char)
            hold.flush()
            took = (time.process_time() - start) / len(text) * 1000
            best = took if best is None else min(best, took)
        out[f"{n}|{name}"] = best
print(json.dumps(out))
"""


def measure(folder: Path) -> dict[str, float]:
    """ms of CPU per one-character piece, by ``"<secrets>|<answer>"``, for the plugin in ``folder``."""
    import json

    done = subprocess.run([sys.executable, "-c", _CHILD, str(folder), json.dumps(SECRETS)],
                          capture_output=True, text=True, check=True, cwd=folder)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> None:
    folders = [Path(a).resolve() for a in argv] or [Path.cwd()]
    results = {folder: measure(folder) for folder in folders}
    print("| secrets | answer | " + " | ".join(f"{f.name} ms/piece" for f in folders) + " |")
    print("|---|---|" + "---:|" * len(folders))
    for key in results[folders[0]]:
        n, name = key.split("|")
        print(f"| {n} | {name} | " + " | ".join(f"{results[f][key]:.3f}" for f in folders) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
