"""The README's section 7, "What the data says": the hand-written FINDINGS.md next to the README,
included below the figures. `autotune report` reads FINDINGS.md and never writes it.

Its title line (a leading `# ...`) is dropped and its headings are moved down so that the
highest becomes `###`, under the section's own `##`; headings inside code blocks stay as they are.

Example:
    >>> findings_section("# Findings\\n\\nCK 64 wins.\\n\\n## Guidelines\\n\\n(1) holds.\\n")[:7]
    ['## 7. What the data says', '', 'CK 64 wins.', '', '### Guidelines', '', '(1) holds.']
"""
from __future__ import annotations

import re

FINDINGS = "FINDINGS.md"
FINDINGS_TITLE = "7. What the data says"
FINDINGS_ANCHOR = "7-what-the-data-says"
_HEADING = re.compile(r"^(#{1,6})(\s+\S.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _outside_fences(lines: list[str]) -> list[bool]:
    """Per line, whether it lies outside fenced code blocks (fence lines count as inside)."""
    outside, fenced = [], False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            outside.append(False)
        else:
            outside.append(not fenced)
    return outside


def findings_lines(text: str) -> list[str]:
    """FINDINGS.md's lines as they appear in the README (title dropped, headings moved down)."""
    lines = text.strip("\n").splitlines()
    title = _HEADING.match(lines[0]) if lines else None
    if title and title.group(1) == "#":
        lines = lines[1:]
        while lines and not lines[0].strip():
            lines = lines[1:]
    outside = _outside_fences(lines)
    levels = [len(m.group(1)) for line, out in zip(lines, outside) if out and (m := _HEADING.match(line))]
    shift = max(0, 3 - min(levels)) if levels else 0
    out = []
    for line, plain in zip(lines, outside):
        match = _HEADING.match(line) if plain else None
        out.append("#" * min(6, len(match.group(1)) + shift) + match.group(2) if match else line.rstrip())
    return out


def findings_section(text: str | None) -> list[str]:
    """Section 7: FINDINGS.md's content, or where to write it when there is none (or it is empty)."""
    lines = [f"## {FINDINGS_TITLE}", ""]
    body = findings_lines(text) if text and text.strip() else []
    if not body:
        return lines + [f"*Not written yet. Write what the data above says about the thesis's conclusions in "
                        f"`{FINDINGS}` next to this README (by hand: `autotune report` reads that file and never "
                        f"writes it), then run the same command again to include it here.*", ""]
    return lines + body + [""]
