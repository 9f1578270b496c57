"""How long a lesson's core path takes to read, and whether its figures can be read.

    python tools/lesson_metrics.py [notebooks]        # one line per lesson, exit 1 on a problem

The reading-time model (the course's own measure of a lesson's length):

    minutes = prose words / 200         markdown, without <details> blocks, comments, the
                                         nav cells and the Sources cell
            + printed words / 200        sentence-like lines that code cells print
            + code lines / 12            non-blank, non-comment lines (solution cells excluded)
            + 1 per figure + 3 per live widget
            + each exercise's minutes    "about N minutes" in its heading

A heading that starts with "Optional" or "Appendix" (or contains "(optional)") opens an
optional region, which lasts until the next heading of the same or a higher level. The
core path is everything outside optional regions.

A lesson passes when its core path is at most 60 minutes, the time stated in its first
cells ("Time: about N minutes") is within 20 % of the core path's, no core paragraph
has more than 150 words, every exercise heading states a difficulty (stars) and its
minutes, every stored figure is at least 480 x 240 pixels and at most three times as wide
as it is tall (or its cell's metadata gives ``figure_size_reason``), and every widget has a
still of that size in its own output or the code cell before it.
"""
from __future__ import annotations

import base64
import json
import pathlib
import re
import struct
import sys
from dataclasses import dataclass, field

MAX_CORE_MINUTES = 60
STATED_TOLERANCE = 0.20
MAX_PARAGRAPH_WORDS = 150
MIN_FIGURE = (480, 240)
MAX_ASPECT = 3.0
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.]*")
_HEADING = re.compile(r"^(#+)\s*(.*)$", re.M)
_OPTIONAL = re.compile(r"(optional|appendix)", re.I)
_EXERCISE = re.compile(r"^#+.*Exercise.*$", re.M | re.I)
_MINUTES = re.compile(r"about (\d+) minutes", re.I)
_STATED = re.compile(r"Time:\s*about (\d+) minutes")


def words(text: str) -> int:
    """Words and numbers in ``text``."""
    return len(_WORD.findall(text))


def _prose(markdown: str) -> str:
    markdown = re.sub(r"<details>.*?</details>", "", markdown, flags=re.S)
    markdown = re.sub(r"<!--.*?-->", "", markdown, flags=re.S)
    return re.sub(r"\$\$.*?\$\$", " formula ", markdown, flags=re.S)


def _printed_words(outputs) -> int:
    n = 0
    for out in outputs:
        if out.get("output_type") == "stream":
            text = "".join(out.get("text", ""))
        else:
            text = "".join(out.get("data", {}).get("text/markdown", ""))
        for line in text.splitlines():
            if len(line.split()) >= 8 and re.search(r"[a-z]{3,} [a-z]{3,} [a-z]{3,}", line):
                n += words(line)
    return n


def png_size(b64: str) -> tuple[int, int]:
    """Width and height in pixels of a base64 PNG, read from its header."""
    raw = base64.b64decode(b64[:64])
    return struct.unpack(">II", raw[16:24])


@dataclass
class Lesson:
    """What the model and the figure check say of one notebook."""

    name: str
    core: float = 0.0
    optional: float = 0.0
    stated: int | None = None
    long_paragraphs: list = field(default_factory=list)   # (cell, words) in the core path
    exercises: list = field(default_factory=list)         # (cell, heading) of each exercise
    bad_exercises: list = field(default_factory=list)     # headings without stars or minutes
    small_figures: list = field(default_factory=list)     # (cell, width, height)
    widgets_without_still: list = field(default_factory=list)

    def problems(self) -> list[str]:
        out = []
        if self.core > MAX_CORE_MINUTES:
            out.append(f"core path {self.core:.0f} min > {MAX_CORE_MINUTES}")
        if self.stated is None:
            out.append("no 'Time: about N minutes' in the first cells")
        elif abs(self.stated - self.core) > STATED_TOLERANCE * self.core:
            out.append(f"states {self.stated} min, the model gives {self.core:.0f}")
        out += [f"cell {i}: a core paragraph of {n} words" for i, n in self.long_paragraphs]
        out += [f"cell {i}: exercise heading without stars or minutes: {h!r}" for i, h in self.bad_exercises]
        out += [f"cell {i}: figure {w} x {h} px" for i, w, h in self.small_figures]
        out += [f"cell {i}: widget without a readable still" for i in self.widgets_without_still]
        return out


def measure(path) -> Lesson:
    """Measure one notebook."""
    path = pathlib.Path(path)
    cells = json.loads(path.read_text())["cells"]
    lesson = Lesson(path.name)
    optional_level = None
    previous_code_has_still = False
    for i, cell in enumerate(cells):
        src = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for m in _HEADING.finditer(src):
                level, title = len(m.group(1)), m.group(2)
                if optional_level is not None and level <= optional_level and not _OPTIONAL.match(title):
                    optional_level = None
                if optional_level is None and (_OPTIONAL.match(title) or "(optional)" in title.lower()):
                    optional_level = level
            if "<!-- nav -->" in src or re.match(r"#+\s*Sources", src.strip()):
                continue
        where = "optional" if optional_level is not None else "core"
        if i < 4 and lesson.stated is None:
            m = _STATED.search(src)
            lesson.stated = int(m.group(1)) if m else None
        minutes = 0.0
        if cell["cell_type"] == "markdown":
            body = _prose(src)
            minutes += words(body) / 200
            if where == "core":
                for para in re.split(r"\n\s*\n", body):
                    if words(para) > MAX_PARAGRAPH_WORDS and not para.lstrip().startswith("|"):
                        lesson.long_paragraphs.append((i, words(para)))
            for m in _EXERCISE.finditer(src):
                heading = m.group(0)
                lesson.exercises.append((i, heading))
                stated = _MINUTES.search(heading)
                minutes += int(stated.group(1)) if stated else 15
                if not stated or "★" not in heading:
                    lesson.bad_exercises.append((i, heading))
        elif cell["cell_type"] == "code":
            has_still, has_widget = False, False
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if WIDGET_MIME in data:
                    has_widget = True
                    minutes += 3
                if "image/png" in data:
                    minutes += 0 if WIDGET_MIME in data else 1
                    w, h = png_size(data["image/png"])
                    exempt = cell.get("metadata", {}).get("figure_size_reason")
                    if not exempt and (w < MIN_FIGURE[0] or h < MIN_FIGURE[1] or w > MAX_ASPECT * h):
                        lesson.small_figures.append((i, w, h))
                    has_still |= w >= MIN_FIGURE[0] and h >= MIN_FIGURE[1]
            if has_widget and not (has_still or previous_code_has_still):
                lesson.widgets_without_still.append(i)
            previous_code_has_still = has_still
            if "BEGIN SOLUTION" not in src:
                code = [ln for ln in src.splitlines() if ln.strip() and not ln.strip().startswith("#")]
                minutes += len(code) / 12 + _printed_words(cell.get("outputs", [])) / 200
        setattr(lesson, where, getattr(lesson, where) + minutes)
    return lesson


def lessons(folder="notebooks") -> list[Lesson]:
    """Every ``NN_*.ipynb`` lesson in ``folder``, measured."""
    return [measure(p) for p in sorted(pathlib.Path(folder).glob("[0-9][0-9]_*.ipynb"))]


def main(argv) -> int:
    folder = argv[0] if argv else "notebooks"
    bad = 0
    for lesson in lessons(folder):
        problems = lesson.problems()
        bad += bool(problems)
        print(f"{lesson.name[:2]}: core {lesson.core:5.1f} min, optional {lesson.optional:5.1f} min, "
              f"stated {lesson.stated}, exercises {len(lesson.exercises)}"
              + ("".join(f"\n    {p}" for p in problems)))
    print(f"{bad} lessons with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
