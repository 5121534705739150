"""Which submissions look alike: copydetect's winnowed fingerprints over the files the grader staged.

Only the staged copy is read (<report folder>/submission: what `make grade` unpacked and
copied, zips included, regular Verilog files only, `include files too (a testbench lab's: Python), no links
followed), never the student's folder itself. The lab's starter counts as boilerplate, so shared
starter code does not make two submissions alike. Every graded submission is compared with every
other; a submission that cannot be compared is listed with the reason.

Tokenising is student text run through a lexer (pygments, through copydetect), which some texts
slow down: a file of backticks took ~30 s. So each submission has a budget: its staged files within
MAX_SUBMISSION_BYTES, and its tokenising within FINGERPRINT_S, done in a child process that is
killed when one submission overruns (that one is left out, with the reason; a fresh child takes
the rest). No one entry holds the table up for longer than that.
"""

from __future__ import annotations

import io
import multiprocessing
import os
import stat
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, NamedTuple

from roofline_course.intake.submission import HDL_SUFFIXES, INCLUDE_SUFFIXES

STAGED = "submission"  # where `make grade` stages a submission inside its report folder
COMPARED = (*HDL_SUFFIXES, *INCLUDE_SUFFIXES, ".py")  # a design's Verilog, its `include files too; lab 6's Python
MAX_SUBMISSION_BYTES = 1 << 20
FINGERPRINT_S = 10.0  # one submission's tokenising; a typical lab design takes well under a second
FLOOR = 0.5  # pairs sharing less than this share of their tokens are not listed
NOISE_TOKENS = 25  # copydetect's k: shorter shared runs do not count


class Pair(NamedTuple):
    share: float  # of the tokens of the one with the larger share
    tokens: int  # tokens in common: among pairs of one share, more shared code is stronger evidence
    first: str  # ids
    second: str


@dataclass
class Similarity:
    pairs: list[Pair] = field(default_factory=list)  # every pair above FLOOR, highest share first, then most tokens
    compared: list[str] = field(default_factory=list)  # ids
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (id, why)


class NotComparable(ValueError):
    pass


def staged_text(folder: Path) -> str:
    """The staged Verilog files of one submission, in name order, joined. Raises NotComparable."""
    parts: list[tuple[str, Path]] = []
    size = 0
    for where, _, files in os.walk(folder, followlinks=False):
        for name in files:
            path = Path(where) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or path.suffix not in COMPARED:
                continue
            size += info.st_size
            if size > MAX_SUBMISSION_BYTES:
                raise NotComparable(f"its staged files exceed {MAX_SUBMISSION_BYTES >> 20} MiB")
            parts.append((str(path.relative_to(folder)), path))
    try:
        text = "\n".join(path.read_text(errors="replace") for _, path in sorted(parts))
    except OSError as problem:
        raise NotComparable(f"a staged file could not be read ({type(problem).__name__})") from None
    if not text.strip():
        raise NotComparable("no staged design files")
    return text


def _fingerprint(text: str, boilerplate: list[Any] | None = None, language: str = "design.sv") -> Any:
    from copydetect import CodeFingerprint  # the language (the tokenizer) from the name's suffix

    return CodeFingerprint(language, NOISE_TOKENS, 1, boilerplate=boilerplate, fp=io.StringIO(text))


def starter_text(starter: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(starter.rglob("*")) if p.suffix in COMPARED)


def similarity(folders: dict[str, str], starter: Path) -> Similarity:
    """Every pair of the submissions (id -> report folder) that share at least FLOOR of their tokens."""
    found = Similarity()
    try:
        from copydetect import compare_files
    except ImportError:
        found.left_out = [(key, "copydetect is not installed (pip install -e '.[course]')") for key in folders]
        return found
    language = "testbench.py" if any(starter.rglob("*.py")) else "design.sv"
    boilerplate = list(_fingerprint(starter_text(starter), language=language).hashes)
    texts = {}
    for key, folder in sorted(folders.items()):
        try:
            texts[key] = staged_text(Path(folder) / STAGED)
        except NotComparable as why:
            found.left_out.append((key, str(why)))
    prints, left_out = fingerprints(texts, boilerplate, language, FINGERPRINT_S)
    found.left_out = sorted(found.left_out + left_out)
    found.compared = sorted(prints)
    for first, second in combinations(found.compared, 2):
        tokens, shares, _ = compare_files(prints[first], prints[second])
        share = float(max(shares))
        if share >= FLOOR:
            found.pairs.append(Pair(share, int(tokens), first, second))
    found.pairs.sort(key=lambda pair: (-pair.share, -pair.tokens, pair.first, pair.second))
    return found


Message = tuple[str, Any, str]  # (id, its fingerprint or None, why it has none)


def fingerprints(texts: dict[str, str], boilerplate: list[Any], language: str, budget_s: float
                 ) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """(id -> fingerprint, [(id, why)]): each text tokenised in a child process within budget_s; one
    that overruns is left out and the child killed, and a fresh child takes the texts after it."""
    context = multiprocessing.get_context("fork")  # the child needs nothing of this process but the texts
    todo = list(texts.items())
    prints: dict[str, Any] = {}
    left_out: list[tuple[str, str]] = []
    while todo:
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(target=_fingerprint_each, args=(sender, todo, boilerplate, language), daemon=True)
        child.start()
        sender.close()
        try:
            while todo:
                key = todo.pop(0)[0]
                try:
                    message: Message | None = receiver.recv() if receiver.poll(budget_s) else None
                except (EOFError, OSError):  # the child died on this text
                    left_out.append((key, "could not be tokenised (the tokeniser stopped)"))
                    break
                if message is None:
                    left_out.append((key, f"tokenising its files took longer than {budget_s:g} s: not compared"))
                    break
                if message[1] is None:
                    left_out.append((key, message[2]))
                else:
                    prints[key] = message[1]
        finally:  # whatever happened here, no child outlives the call
            child.kill()
            child.join()
            receiver.close()
    return prints, left_out


def _fingerprint_each(sender: Any, todo: list[tuple[str, str]], boilerplate: list[Any], language: str) -> None:
    for key, text in todo:
        try:
            message: Message = (key, _fingerprint(text, boilerplate, language), "")
        except Exception as problem:  # noqa: BLE001 - a tokenizer on student text; one submission never costs the table
            message = (key, None, f"could not be tokenised ({type(problem).__name__})")
        sender.send(message)
    sender.close()
