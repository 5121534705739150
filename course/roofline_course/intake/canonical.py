"""The one design every tool builds: the checked syntax tree written out as plain tokens.

design_check reads a submission with pyslang; Icarus, Verilator and Yosys each read text with
their own lexer, and they disagree about the corners (Verilator ends an `(* ... *)` attribute at
the first `*)`, even inside a string, and reads comments that start with `verilator` as
metacomments; Yosys obeys `translate_off` and `synthesis` comment pragmas and `(* full_case *)`).
So no tool ever reads the student's text: `write` prints the tokens pyslang read, preprocessed,
in one normal form, and that text is all any tool is given.

The normal form: no comments, attributes, pragmas or directives (but `timescale,
`default_nettype and `resetall, each on a line of its own); tokens separated by one space, but a
sized number (`8'hff`) and a cast's apostrophe written together; escaped identifiers written
plain (one that is not a plain name is refused); strings re-escaped to printable ASCII. Every
line of it comes from one line of the student's files, and `Canonical.lines` maps it back, so
the tools' messages name the student's own file and line (`Canonical.to_source`). A construct
that cannot be printed back is refused with its file and line, and so is a text that pyslang
does not read back as the very same tokens (`check_round_trip`).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pyslang

NAME = "canonical.sv"  # the file every tool reads, alone in its folder
MAP_NAME = "canonical.map.json"
MAX_BYTES = 8 << 20  # the canonical text of a design (macros expanded); a larger one is refused
KEPT_DIRECTIVES = {
    pyslang.syntax.SyntaxKind.TimeScaleDirective,
    pyslang.syntax.SyntaxKind.DefaultNetTypeDirective,
    pyslang.syntax.SyntaxKind.ResetAllDirective,
}
# Directives that would change what the tools build and cannot be kept in the normal form.
REFUSED_DIRECTIVES = {
    pyslang.syntax.SyntaxKind.UnconnectedDriveDirective: "`unconnected_drive changes what an unconnected input reads",
    pyslang.syntax.SyntaxKind.NoUnconnectedDriveDirective: "`nounconnected_drive",
    pyslang.syntax.SyntaxKind.BeginKeywordsDirective: "`begin_keywords changes which words are keywords",
    pyslang.syntax.SyntaxKind.EndKeywordsDirective: "`end_keywords",
}
PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
GLUED = (pyslang.parsing.TokenKind.Apostrophe,)  # a cast: int'(x), written without spaces
# Written as one word: a sized number (8'hff), and the wildcard port connection `.*` (Icarus reads `. *`
# as a named connection with no name, a syntax error).
TOGETHER = (pyslang.syntax.SyntaxKind.IntegerVectorExpression, pyslang.syntax.SyntaxKind.WildcardPortConnection)
FOREIGN = "an `include of a file that is not one of yours"
REFERENCE = re.compile(re.escape(NAME) + r":(\d+)(?::\d+)?")  # found by its name: linear in any text
PATH_CHARACTER = re.compile(r"[^\s:'\"()]")
MAX_FOLDER = 4096  # how far back a folder before canonical.sv is looked for: PATH_MAX
NOWHERE = ("", 0)  # no word's place: a student's line is never 0


class NotPrintable(ValueError):
    """The design holds a construct the normal form cannot write; the message names file and line."""


@dataclass(frozen=True)
class Canonical:
    """The canonical text and, for each of its lines, the student's (file, line) it comes from."""

    text: str
    lines: list[tuple[str, int]] = field(default_factory=list)

    def source_of(self, line: int) -> tuple[str, int] | None:
        return self.lines[line - 1] if 1 <= line <= len(self.lines) else None

    def place(self, line: int) -> str:
        """A canonical line as "file:line" of the student's."""
        where = self.source_of(line)
        return f"{where[0]}:{where[1]}" if where else "?"

    def to_source(self, message: str, prefix: str = "") -> str:
        """A tool's message with every canonical.sv:LINE[:COL] as the student's own prefix+file:line."""

        out, done = [], 0
        for match in REFERENCE.finditer(message):
            place = self.source_of(int(match[1]))
            if place is None:
                continue
            start = match.start()
            if start and message[start - 1] == "/":  # the folder the tool named it by goes too
                floor = max(done, start - MAX_FOLDER)
                while start > floor and PATH_CHARACTER.match(message[start - 1]):
                    start -= 1
            out += [message[done:start], f"{prefix}{place[0]}:{place[1]}"]
            done = match.end()
        return "".join([*out, message[done:]])

    def write(self, folder: Path) -> Path:
        """The text as the only file of `folder` (what the tools' sandboxes mount), and its map beside it."""
        folder.mkdir(parents=True, exist_ok=True)
        (folder / NAME).write_text(self.text)
        (folder.parent / MAP_NAME).write_text(json.dumps(self.lines))
        return folder / NAME

    def to_json(self) -> dict:
        files = list(dict.fromkeys(name for name, _ in self.lines))
        index = {name: number for number, name in enumerate(files)}
        return {"text": self.text, "files": files, "lines": [[index[name], line] for name, line in self.lines]}

    @classmethod
    def from_json(cls, data: dict) -> Canonical:
        files = [str(path) for path in data["files"]]
        return cls(str(data["text"]), [(files[int(which)], int(line)) for which, line in data["lines"]])


class Places:
    """Where a token is in the student's files: the file as given, and its raw line (a `line
    directive renames neither; a macro's tokens are placed where the macro is used)."""

    def __init__(self, manager: pyslang.SourceManager) -> None:
        self.manager = manager
        self.buffers: dict[int, tuple[str, list[int]]] = {}  # buffer -> (its file, where its lines end)

    def of(self, location: pyslang.SourceLocation) -> tuple[str, int]:
        expanded = self.manager.getFullyExpandedLoc(location)
        buffer = expanded.buffer
        if buffer.id not in self.buffers:
            text = self.manager.getSourceText(buffer)
            full = self.manager.getFullPath(buffer)  # the raw name may be a path relative to somewhere else
            name = str(full) if full.parts else self.manager.getRawFileName(buffer)
            self.buffers[buffer.id] = name, [index for index, char in enumerate(text) if char == "\n"]
        name, ends = self.buffers[buffer.id]
        return name, bisect.bisect_left(ends, expanded.offset) + 1

    def shown(self, location: pyslang.SourceLocation) -> str:
        name, line = self.of(location)
        return f"{Path(name).name}:{line}"


@dataclass(frozen=True)
class Word:
    """One word of the canonical text: a token (or a sized number, or a kept directive) and its place."""

    text: str
    place: tuple[str, int]
    glued: bool = False  # written against the word before it (a cast's apostrophe and what follows it)
    alone: bool = False  # a directive: a line of its own


def tokens_of(root: pyslang.syntax.SyntaxNode) -> Iterator[list[pyslang.parsing.Token]]:
    """The tokens of a tree in order, attributes left out; a sized number's tokens, and a `.*`, come together."""
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, pyslang.parsing.Token):
            yield [node]
        elif isinstance(node, pyslang.syntax.SyntaxNode):
            if node.kind == pyslang.syntax.SyntaxKind.AttributeInstance:
                continue
            if node.kind in TOGETHER:
                yield list(all_tokens(node))
                continue
            stack.extend(reversed([child for child in node if child is not None]))


def all_tokens(root: pyslang.syntax.SyntaxNode) -> Iterator[pyslang.parsing.Token]:
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, pyslang.parsing.Token):
            yield node
        elif isinstance(node, pyslang.syntax.SyntaxNode):
            stack.extend(reversed([child for child in node if child is not None]))


def printed_tokens(tokens: list[pyslang.parsing.Token]) -> list[pyslang.parsing.Token]:
    return [token for token in tokens if token.rawText and not token.isMissing
            and token.kind != pyslang.parsing.TokenKind.EndOfFile]


def write(tree: pyslang.syntax.SyntaxTree, is_own: Callable[[str], bool]) -> Canonical:
    """The canonical text of a parsed design. Raises NotPrintable."""
    places = Places(tree.sourceManager)
    words: list[Word] = []
    for group in tokens_of(tree.root):
        for token in group:
            words += _directives(token, places)
        printed = printed_tokens(group)
        if not printed:
            continue
        place = places.of(printed[0].location)
        # every token of the group: a sized number may begin in the student's file and end in an included one
        foreign = next((token for token in printed if not is_own(places.of(token.location)[0])), None)
        if foreign is not None:
            site = include_site(tree.sourceManager, foreign.location, places)
            raise NotPrintable(f"{Path(site[0]).name}:{site[1]}: {FOREIGN}" if site else FOREIGN)
        text = "".join(_printed(token, places) for token in printed)  # 8'hff (size, base and digits) and .* together
        after_cast = bool(words) and words[-1].text == "'"
        words.append(Word(text, place, glued=printed[0].kind in GLUED or after_cast))
    return _layout(words)


def _directives(token: pyslang.parsing.Token, places: Places) -> list[Word]:
    """The directives kept in the normal form, each a line of its own; a refused one raises."""
    kept = []
    for trivia in token.trivia:
        directive = trivia.syntax() if trivia.kind == pyslang.parsing.TriviaKind.Directive else None
        if directive is None:
            continue
        if directive.kind in REFUSED_DIRECTIVES:
            raise NotPrintable(f"{places.shown(directive.sourceRange.start)}: {REFUSED_DIRECTIVES[directive.kind]}: "
                               "the grader builds designs without it")
        if directive.kind in KEPT_DIRECTIVES:
            name, *rest = [part.rawText for part in all_tokens(directive) if part.rawText]
            kept.append(Word(" ".join([name, *(["".join(rest)] if rest else [])]), places.of(directive.sourceRange.start),
                             alone=True))
    return kept


def include_site(manager: pyslang.SourceManager, location: pyslang.SourceLocation, places: Places
                 ) -> tuple[str, int] | None:
    """The (file, line) that included a foreign file, the outermost include of it; None if none."""
    buffer = manager.getFullyExpandedLoc(location).buffer
    site, seen = None, {buffer.id}
    while (included := manager.getIncludedFrom(buffer)).buffer and included.buffer.id not in seen:
        site, buffer = included, included.buffer
        seen.add(buffer.id)
    return places.of(site) if site is not None else None


def _printed(token: pyslang.parsing.Token, places: Places) -> str:
    """A token as the normal form writes it."""
    kind, raw = token.kind, token.rawText
    if kind == pyslang.parsing.TokenKind.StringLiteral:
        if raw.startswith('"""'):
            raise NotPrintable(f"{places.shown(token.location)}: a triple-quoted string: write it as a \"...\" string")
        return _string(token.valueText)
    if kind == pyslang.parsing.TokenKind.Identifier and raw.startswith("\\"):
        if PLAIN_NAME.match(token.valueText):
            return token.valueText
        raise NotPrintable(f"{places.shown(token.location)}: the escaped identifier {raw[:40]}: "
                           "the grader builds plain names only (letters, digits, _ and $)")
    if any(not (" " < char <= "~") for char in raw):
        raise NotPrintable(f"{places.shown(token.location)}: a character outside printable ASCII in {raw[:40]!r}")
    return raw


def _string(value: str) -> str:
    """A string literal of this value in printable ASCII: other bytes, quotes and backslashes escaped."""
    out = []
    for byte in value.encode("utf-8", errors="surrogateescape"):
        char = chr(byte)
        out.append(f"\\{char}" if char in '"\\' else char if " " <= char <= "~" else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _layout(words: list[Word]) -> Canonical:
    """One canonical line per student line; a directive has a line of its own."""
    lines: list[tuple[list[str], tuple[str, int]]] = []
    for word in words:
        if word.alone:
            lines += [([word.text], word.place), ([], NOWHERE)]  # an empty line no word's place joins
        elif word.glued and lines and lines[-1][0]:
            lines[-1][0][-1] += word.text
        elif lines and lines[-1][1] == word.place:
            lines[-1][0].append(word.text)
        else:
            lines.append(([word.text], word.place))
    kept = [(line, place) for line, place in lines if line]
    text = "".join(" ".join(line) + "\n" for line, _ in kept)
    if len(text) > MAX_BYTES:
        raise NotPrintable(f"the design expands to more than {MAX_BYTES >> 20} MiB of code (a macro that grows?)")
    return Canonical(text, [place for _, place in kept])


def stream(tree: pyslang.syntax.SyntaxTree) -> list[tuple[str, str]]:
    """(kind, value) of every token but attributes': what the round trip must keep."""
    return [(token.kind.name, token.valueText) for group in tokens_of(tree.root) for token in printed_tokens(group)]


def check_round_trip(canonical: Canonical, checked: pyslang.syntax.SyntaxTree) -> None:
    """pyslang reads the canonical text back as the very tokens it checked, and nothing else: no
    comment, macro or directive but the kept ones. Raises NotPrintable."""
    tree = pyslang.syntax.SyntaxTree.fromText(canonical.text, pyslang.SourceManager(), NAME)
    manager = tree.sourceManager

    def where(location: pyslang.SourceLocation) -> str:
        place = canonical.source_of(manager.getLineNumber(location))
        return f"{Path(place[0]).name}:{place[1]}" if place else "?"

    for token in all_tokens(tree.root):
        for trivia in token.trivia:
            kept = trivia.kind == pyslang.parsing.TriviaKind.Directive and trivia.syntax() is not None \
                and trivia.syntax().kind in KEPT_DIRECTIVES
            if trivia.kind not in (pyslang.parsing.TriviaKind.Whitespace, pyslang.parsing.TriviaKind.EndOfLine) and not kept:
                raise NotPrintable(f"{where(token.location)}: the design cannot be written out as plain tokens "
                                   f"({trivia.kind.name} in the text written)")
    written = [token for group in tokens_of(tree.root) for token in printed_tokens(group)]
    wanted = stream(checked)
    if [(token.kind.name, token.valueText) for token in written] != wanted:
        at = next((index for index, (a, b) in enumerate(zip(written, wanted, strict=False))
                   if (a.kind.name, a.valueText) != b), min(len(written), len(wanted)) - 1)
        place = where(written[at].location) if 0 <= at < len(written) else "?"
        raise NotPrintable(f"{place}: the design cannot be written out as plain tokens that read back the same "
                           "(a keyword used as a name? an unusual spelling?)")
    errors = [diagnostic for diagnostic in tree.diagnostics if diagnostic.isError()]
    if errors:
        raise NotPrintable(f"{where(errors[0].location)}: the design written out as plain tokens does not parse")
