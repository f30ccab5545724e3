#!/usr/bin/env python3
"""Checks the user's guide (docs/guide, mdBook layout) without mdBook, which CI cannot install in
its time budget.

    python3 -B tools/check-guide.py [GUIDE_DIR]      (default: docs/guide beside this tool)

It fails (exit status 1, one line per problem) when:
- a page listed in src/SUMMARY.md does not exist, or an .md file under src/ is not listed;
- a relative link (inline or reference-style) names a missing file, or a `#fragment` of a guide page
  names no heading of that page;
- an `{{#include PATH:ANCHOR}}` names a missing file, or an anchor without both its
  `ANCHOR: name` and `ANCHOR_END: name` lines, or an empty region; includes must name an anchor,
  because line numbers drift silently when the source changes;
- a ```rust block holds anything but includes: the guide's Rust all comes from sources that
  `./x test` compiles, so no snippet goes unchecked;
- a page other than its home states one of FACTS (a default that pages used to disagree on): the
  guide states each once and links to it, so that no two pages can disagree.
Standard library only.
"""

import os
import re
import sys
from pathlib import Path

FENCE = re.compile(r"^ {0,3}(```+|~~~+)\s*([^\s`]*)")
SUMMARY_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]*)\)")
INLINE_LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
INCLUDE = re.compile(r"\{\{#(\w+)\s+([^}]*?)\s*\}\}")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
ANCHOR_NAME = re.compile(r"^[\w-]+$")

# The rest of a sentence: anything but a full stop that ends one (`e.g.` or `nvshmem.alloc` do not).
SAME_SENTENCE = r"(?:[^.]|\.(?=\S))*"

# Facts stated on one page of the guide only, their home (relative to src/); every other page links
# there. Each pattern matches a sentence that states the fact, across line breaks.
FACTS = [
    (
        "in which builds the allocation check is on",
        "concepts/symmetric-heap.md",
        re.compile(
            rf"allocation check{SAME_SENTENCE}\b(?:debug|release|every)\s+builds?\b"
            rf"|\b(?:debug|release)\s+builds?\b{SAME_SENTENCE}\ballocations?\b",
            re.IGNORECASE,
        ),
    ),
    (
        "the symmetric heap's default size",
        "concepts/symmetric-heap.md",
        re.compile(
            rf"\b(?:1|128)\s+GiB\b{SAME_SENTENCE}\bdefault|\bdefault{SAME_SENTENCE}\b(?:1|128)\s+GiB\b"
        ),
    ),
]


def split_code(text):
    """The page's lines outside fenced code, and its fenced blocks as (info string, body lines,
    line number of the opening fence)."""
    prose, blocks = [], []
    fence, info, body, start = None, "", [], 0
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence, info, body, start = match.group(1), match.group(2), [], number
                prose.append((number, ""))
            else:
                prose.append((number, line))
        elif line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            blocks.append((info, body, start))
            fence = None
            prose.append((number, ""))
        else:
            body.append(line)
            prose.append((number, ""))
    if fence is not None:
        blocks.append((info, body, start))
    return prose, blocks


def heading_ids(text):
    """The ids mdBook gives the page's headings: the heading's text, lower-case, spaces to `-`,
    only letters, digits, `_` and `-` kept; a repeated id gets `-1`, `-2`, ..."""
    prose, _ = split_code(text)
    ids, seen = set(), {}
    for _, line in prose:
        match = HEADING.match(line)
        if not match:
            continue
        words = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))
        words = words.replace("`", "").replace("*", "")
        slug = "".join(
            c.lower() if c.isalnum() or c in "_-" else "-" if c.isspace() else "" for c in words
        )
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def summary_pages(summary):
    """The pages SUMMARY.md links, in order (relative to src/), and problems with its entries."""
    pages, problems = [], []
    prose, _ = split_code(summary.read_text(encoding="utf-8"))
    for number, line in prose:
        for target in SUMMARY_LINK.findall(line):
            if not target:
                problems.append(
                    f"{summary}:{number}: an entry without a page (a draft chapter); write the page"
                    " or remove the entry"
                )
                continue
            pages.append((target.split("#")[0], number))
    return pages, problems


def check_summary(src):
    problems = []
    summary = src / "SUMMARY.md"
    if not summary.is_file():
        return [f"{summary}: missing; the guide's table of contents must be src/SUMMARY.md"]
    pages, problems = summary_pages(summary)
    listed = set()
    for page, number in pages:
        listed.add(os.path.normpath(page))
        if not (src / page).is_file():
            problems.append(f"{summary}:{number}: lists {page}, which does not exist; create it")
    for path in sorted(src.rglob("*.md")):
        relative = os.path.normpath(path.relative_to(src).as_posix())
        if relative != "SUMMARY.md" and relative not in listed:
            problems.append(
                f"{path}: not listed in {summary}; add it there, or delete it (mdBook would not"
                " show it)"
            )
    return problems


def prose_links(text):
    """(line number, target) of every link outside code."""
    prose, _ = split_code(text)
    for number, line in prose:
        line = INLINE_CODE.sub("", line)
        definition = REFERENCE_DEFINITION.match(line)
        if definition:
            yield number, definition.group(1)
            continue
        for target in INLINE_LINK.findall(line):
            yield number, target


def check_links(page, guide_pages):
    problems = []
    for number, target in prose_links(page.read_text(encoding="utf-8")):
        if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue  # external (https:, mailto:) or empty
        path, _, fragment = target.partition("#")
        destination = (page.parent / path).resolve() if path else page.resolve()
        where = f"{page}:{number}"
        if not destination.exists():
            problems.append(f"{where}: link to {target}: {path} does not exist; fix the path")
            continue
        if fragment and destination in guide_pages:
            if fragment not in heading_ids(destination.read_text(encoding="utf-8")):
                problems.append(
                    f"{where}: link to {target}: {destination.name} has no heading with id "
                    f"`{fragment}`; link to one of: {', '.join(sorted(heading_ids(destination.read_text(encoding='utf-8'))))}"
                )
    return problems


def anchored_region(lines, name):
    """The lines between `ANCHOR: name` and `ANCHOR_END: name`, or None if either is missing."""
    start = end = None
    for index, line in enumerate(lines):
        if re.search(rf"ANCHOR:\s*{re.escape(name)}\s*$", line) and start is None:
            start = index
        elif re.search(rf"ANCHOR_END:\s*{re.escape(name)}\s*$", line) and start is not None:
            end = index
            break
    if start is None or end is None:
        return None
    return [line for line in lines[start + 1 : end] if not re.search(r"ANCHOR(_END)?:", line)]


def check_include(page, number, directive, argument):
    where = f"{page}:{number}"
    if directive != "include":
        return [
            f"{where}: {{{{#{directive}}}}} is not checked here; use {{{{#include PATH:ANCHOR}}}}"
        ]
    path, _, anchor = argument.partition(":")
    if not anchor:
        return [f"{where}: {{{{#include {argument}}}}} names no anchor; include PATH:ANCHOR"]
    if not ANCHOR_NAME.match(anchor):
        return [
            f"{where}: {{{{#include {argument}}}}}: `{anchor}` is not an anchor name; line numbers"
            " drift when the source changes, so mark the lines with `// ANCHOR: name` and"
            " `// ANCHOR_END: name`"
        ]
    source = page.parent / path
    if not source.is_file():
        return [f"{where}: {{{{#include {argument}}}}}: {path} does not exist; fix the path"]
    region = anchored_region(source.read_text(encoding="utf-8").splitlines(), anchor)
    if region is None:
        return [
            f"{where}: {{{{#include {argument}}}}}: {path} has no `ANCHOR: {anchor}` ..."
            f" `ANCHOR_END: {anchor}` pair; add both lines around the snippet"
        ]
    if not any(line.strip() for line in region):
        return [f"{where}: {{{{#include {argument}}}}}: the anchored region is empty"]
    return []


def check_code(page):
    problems = []
    prose, blocks = split_code(page.read_text(encoding="utf-8"))
    for number, line in prose:
        for directive, argument in INCLUDE.findall(INLINE_CODE.sub("", line)):
            problems += check_include(page, number, directive, argument)
    for info, body, start in blocks:
        for offset, line in enumerate(body, 1):
            for directive, argument in INCLUDE.findall(line):
                problems += check_include(page, start + offset, directive, argument)
        if info.split(",")[0] != "rust":
            continue
        inline = [line for line in body if line.strip() and not INCLUDE.fullmatch(line.strip())]
        if inline or not any(line.strip() for line in body):
            problems.append(
                f"{page}:{start}: a ```rust block with inline code, which no compiler checks;"
                " include it from a compiled source ({{#include PATH:ANCHOR}}), or mark output"
                " ```text and commands ```shell"
            )
    return problems


def paragraphs(text):
    """(line number, text) of each paragraph outside code, inline code kept without its backticks."""
    prose, _ = split_code(text)
    start, lines = None, []
    for number, line in prose + [(None, "")]:
        if line.strip():
            start = number if start is None else start
            lines.append(line.replace("`", ""))
        elif lines:
            yield start, "\n".join(lines)
            start, lines = None, []


def check_facts(page, src):
    """Where `page` states a fact of FACTS away from its home."""
    problems = []
    relative = page.relative_to(src).as_posix() if page.is_relative_to(src) else None
    for start, paragraph in paragraphs(page.read_text(encoding="utf-8")):
        for fact, home, pattern in FACTS:
            match = pattern.search(paragraph)
            if match and relative != home:
                line = start + paragraph.count("\n", 0, match.start())
                quoted = " ".join(match.group(0).split())
                problems.append(
                    f"{page}:{line}: states {fact} (\"{quoted}\"), which the guide states only on"
                    f" {home}; link there instead, so that no two pages can disagree"
                )
    return problems


def check(guide):
    """Every problem with the guide in folder `guide`, as messages."""
    guide = Path(guide)
    src = guide / "src"
    problems = []
    if not (guide / "book.toml").is_file():
        problems.append(f"{guide / 'book.toml'}: missing; mdBook needs it")
    problems += check_summary(src)
    pages = sorted(src.rglob("*.md")) + sorted(guide.glob("*.md"))
    guide_pages = {page.resolve() for page in pages}
    for page in pages:
        problems += check_links(page, guide_pages)
        problems += check_code(page)
        problems += check_facts(page, src)
    return problems


def main(argv):
    guide = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "docs/guide"
    problems = check(guide)
    for problem in problems:
        print(f"check-guide: {problem}", file=sys.stderr)
    if problems:
        print(f"check-guide: {len(problems)} problem(s) in {guide}", file=sys.stderr)
        return 1
    pages = len(list((guide / "src").rglob("*.md")))
    print(f"check-guide: {guide}: {pages} pages, links, anchors and includes OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
