"""TEACHING.md agrees with the lessons it describes.

For every lesson section of TEACHING.md (``### NN · Title``):

* its title is the notebook's (``# NN · Title``);
* ``**Time:** N minutes`` is the notebook's ``Time: about N minutes`` (stated in its first
  cells), and the extra minutes for the optional parts and appendices agree: TEACHING.md's
  first number after the minutes (``plus 35 for ...``, ``(appendix: 2 more)``) against the
  notebook's ``(...: about 35 more)``, or neither gives any;
* the exercises listed under its ``- **Exercise...**`` bullet give, in order, the difficulty and
  the minutes of the notebook's exercise headings (``Difficulty ★★☆, 15 minutes`` against
  ``### Exercise 2 (★★☆, about 15 minutes): ...``), and say ``(optional part)`` exactly for
  the exercises under an ``## Optional`` heading.
"""
from __future__ import annotations

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TEACHING = ROOT / "TEACHING.md"
NOTEBOOKS = {p.name[:2]: p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))}

STARS = r"★☆☆|★★☆|★★★"

#: A notebook's exercise heading, e.g. "### Exercise 2 (★★☆, about 20 minutes): the grid's pair loop",
#: "## 6. Exercise 1 (warm-up, ★☆☆, about 5 minutes): ...", "## Optional: Exercise 3 (★☆☆, about 5 minutes): ...",
#: "### Exercise (★★☆, about 20 minutes): the boxes of one cell".
NB_EXERCISE = re.compile(
    r"#{2,4} (?:\d+\. |Optional: )?Exercise(?: \d+)? \((?:warm-up, |core, )?(" + STARS + r"), about (\d+) minutes\): \S.*")
#: The lesson's stated time, e.g. "Time: about 55 minutes (the optional parts and appendices: about 35 more)."
NB_TIME = re.compile(r"Time: about (\d+) minutes(?: \(([^()]*)\))?")
NB_MORE = re.compile(r"(\d+) more$")

#: TEACHING.md's lesson heading, e.g. "### 02 · Uniform grids: one integer per cell".
SECTION = re.compile(r"^### (\d\d) · (.+)$", re.M)
#: TEACHING.md's time, e.g. "**Time:** 55 minutes, plus about 35 for the optional parts." up to the sentence's end.
TEACH_TIME = re.compile(r"\*\*Time:\*\*\s+(\d+)\s+minutes(.*?)\.(?:\s|$)", re.S)
#: TEACHING.md's difficulty of one exercise, e.g. "Difficulty ★★☆, 15 minutes" (possibly wrapped).
TEACH_EXERCISE = re.compile(r"Difficulty\s+(" + STARS + r"),\s+(\d+)\s+minutes")
#: Any stars-and-minutes mention, to catch one written in another form ("★★☆, 15 minutes").
ANY_STARS_MINUTES = re.compile(r"[★☆]{3},\s+(?:about\s+)?\d+\s+minutes")
OPTIONAL_MARK = "(optional part)"


def _squash(text: str) -> str:
    return " ".join(text.split())


def _markdown(nb_path: pathlib.Path) -> list[str]:
    nb = json.loads(nb_path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def notebook_title(nb_path: pathlib.Path) -> str:
    first = _markdown(nb_path)[0].strip()
    assert first.startswith("# "), f"{nb_path.name}: the first cell is not the title: {first[:60]!r}"
    return first[2:].strip()


def notebook_time(nb_path: pathlib.Path) -> tuple[int, int | None]:
    """(minutes, extra minutes or None) from the markdown cells before the first numbered section."""
    intro = []
    for src in _markdown(nb_path):
        if re.search(r"^## 1\. ", src, re.M):
            intro.append(src.split("\n## 1. ")[0])
            break
        intro.append(src)
    found = NB_TIME.findall(_squash("\n".join(intro)))
    assert len(found) == 1, f"{nb_path.name}: expected one 'Time: about N minutes' in the first cells, found {found}"
    minutes, paren = found[0]
    extra = None
    if paren:
        more = NB_MORE.search(paren)
        assert more, f"{nb_path.name}: the time's parenthesis does not end in 'N more': ({paren})"
        extra = int(more.group(1))
    return int(minutes), extra


def notebook_exercises(nb_path: pathlib.Path) -> list[tuple[str, int, bool]]:
    """(stars, minutes, under an Optional heading) of every exercise heading, in order."""
    out, section = [], ""
    for src in _markdown(nb_path):
        for line in src.splitlines():
            if not line.startswith("#"):
                continue
            if line.startswith("## "):
                section = line
            if re.search(r"\bExercise\b", line):
                m = NB_EXERCISE.fullmatch(line.strip())
                assert m, f"{nb_path.name}: an exercise heading not in the course's form: {line!r}"
                optional = section.startswith(("## Optional", "## Appendix"))
                out.append((m.group(1), int(m.group(2)), optional))
    return out


def teaching_sections() -> dict[str, tuple[str, str]]:
    """Lesson number -> (title, text of its TEACHING.md section)."""
    text = TEACHING.read_text()
    heads = list(SECTION.finditer(text))
    out = {}
    for k, h in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
        body = text[h.end():end]
        body = re.split(r"^## ", body, maxsplit=1, flags=re.M)[0]    # the last lesson ends at the next chapter
        out[h.group(1)] = (h.group(2).strip(), body)
    return out


def teaching_time(body: str, where: str) -> tuple[int, int | None]:
    found = TEACH_TIME.findall(body)
    assert len(found) == 1, f"{where}: expected one '**Time:** N minutes ...' sentence, found {len(found)}"
    minutes, rest = found[0]
    extra = re.search(r"\b(\d+)\b", rest)
    return int(minutes), int(extra.group(1)) if extra else None


def teaching_exercises(body: str, where: str) -> list[tuple[str, int, bool]]:
    """(stars, minutes, marked '(optional part)') of the exercises listed in the section, in order."""
    lines = body.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("- **Exercise")]
    assert len(starts) == 1, f"{where}: expected one '- **Exercise...**' bullet, found {len(starts)}"
    block_lines = [lines[starts[0]]]
    for line in lines[starts[0] + 1:]:
        if line.startswith("- **"):
            break
        block_lines.append(line)
    block = "\n".join(block_lines)
    parts = re.split(r"\n\s+\d+\. ", block)
    items = parts[1:] if len(parts) > 1 else [block]
    out = []
    for k, item in enumerate(items, 1):
        strict, loose = TEACH_EXERCISE.findall(item), ANY_STARS_MINUTES.findall(item)
        assert len(strict) == len(loose), (
            f"{where}, exercise {k}: write the difficulty as 'Difficulty ★★☆, 15 minutes': {loose}")
        if len(parts) == 1 and not strict:
            return []                                   # "- **Exercises:** none (...)"
        assert len(strict) == 1, f"{where}, exercise {k}: expected one 'Difficulty ★★☆, N minutes', found {strict}"
        stars, minutes = strict[0]
        out.append((stars, int(minutes), OPTIONAL_MARK in item))
    return out


SECTIONS = teaching_sections()


def test_every_lesson_has_a_section():
    assert sorted(SECTIONS) == sorted(NOTEBOOKS), (
        f"TEACHING.md sections {sorted(SECTIONS)} against notebooks {sorted(NOTEBOOKS)}")


@pytest.mark.parametrize("num", sorted(NOTEBOOKS))
def test_title_matches(num):
    assert num in SECTIONS, f"TEACHING.md has no section '### {num} · ...'"
    title, _ = SECTIONS[num]
    assert f"{num} · {title}" == notebook_title(NOTEBOOKS[num])


@pytest.mark.parametrize("num", sorted(NOTEBOOKS))
def test_time_matches(num):
    assert num in SECTIONS, f"TEACHING.md has no section '### {num} · ...'"
    nb = NOTEBOOKS[num]
    want = notebook_time(nb)
    got = teaching_time(SECTIONS[num][1], f"TEACHING.md lesson {num}")
    assert got[0] == want[0], f"lesson {num}: TEACHING.md says {got[0]} minutes, {nb.name} about {want[0]}"
    assert got[1] == want[1], (
        f"lesson {num}: TEACHING.md's extra minutes {got[1]}, {nb.name}'s (optional parts, appendices) {want[1]}")


@pytest.mark.parametrize("num", sorted(NOTEBOOKS))
def test_exercises_match(num):
    assert num in SECTIONS, f"TEACHING.md has no section '### {num} · ...'"
    nb = NOTEBOOKS[num]
    want = notebook_exercises(nb)
    got = teaching_exercises(SECTIONS[num][1], f"TEACHING.md lesson {num}")
    show = lambda rows: [f"{s} {m} min{' (optional part)' if o else ''}" for s, m, o in rows]  # noqa: E731
    assert got == want, f"lesson {num}: TEACHING.md lists {show(got)}, {nb.name}'s headings {show(want)}"


def test_parsers_on_the_real_formats():
    """The parsers read exactly the forms the course writes, and nothing looser."""
    assert NB_EXERCISE.fullmatch("### Exercise 2 (★★☆, about 20 minutes): the grid's pair loop").groups() == ("★★☆", "20")
    assert NB_EXERCISE.fullmatch("## 6. Exercise 1 (warm-up, ★☆☆, about 5 minutes): which children?").groups() == ("★☆☆", "5")
    assert NB_EXERCISE.fullmatch("## Optional: Exercise 3 (★☆☆, about 5 minutes): a node's rectangle")
    assert NB_EXERCISE.fullmatch("### Exercise (★★★, about 25 minutes): `nearest_by_query`").groups() == ("★★★", "25")
    assert not NB_EXERCISE.fullmatch("### Exercise 2 (★★☆, 20 minutes): no 'about'")
    assert not NB_EXERCISE.fullmatch("### Exercise 2 (★☆★, about 20 minutes): not a difficulty")
    assert NB_TIME.search("Time: about 55 minutes (the optional parts and appendices: about 35 more).").groups() == (
        "55", "the optional parts and appendices: about 35 more")
    body = ("- **Prerequisites:** lesson 01. **Time:** 50 minutes, plus 35 for the optional parts (exercise 3).\n"
            "- **Exercises:**\n  1. `f(x)`. Difficulty ★☆☆, 5 minutes. Typical mistakes: none.\n"
            "  2. `g(x)` (optional part). Difficulty ★★☆,\n     15 minutes.\n- **Pitfalls:** none.\n")
    assert teaching_time(body, "sample") == (50, 35)
    assert teaching_exercises(body, "sample") == [("★☆☆", 5, False), ("★★☆", 15, True)]
    with pytest.raises(AssertionError, match="Difficulty"):
        teaching_exercises("- **Exercise:** `f(x)`. ★★☆, 10 minutes.\n", "sample")
