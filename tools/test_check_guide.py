#!/usr/bin/env python3
"""Tests of tools/check-guide.py: a small guide that passes, then each defect the checker exists
for, planted one at a time, must fail with a message naming it. Standard library only:

    python3 -B tools/test_check_guide.py
"""

import importlib.util
import tempfile
import unittest
from pathlib import Path

SPEC = importlib.util.spec_from_file_location(
    "check_guide", Path(__file__).resolve().parent / "check-guide.py"
)
check_guide = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(check_guide)

SOURCE = """\
pub fn outside() {}
// ANCHOR: ring_put
pub fn put() {}
// ANCHOR: nested
pub fn nested() {}
// ANCHOR_END: nested
// ANCHOR_END: ring_put
"""

SUMMARY = """\
# Summary

[Introduction](introduction.md)

- [Concepts](concepts/put.md)
    - [Ordering](concepts/ordering.md)
"""

INTRODUCTION = """\
# Introduction

Read [put](concepts/put.md#put-and-get), then [ordering](concepts/ordering.md#quiet-and-fence).
The [code](../../../code/lib.rs) and the [repository](../../../) exist; [NVSHMEM][api] too.
`[not a link](nowhere.md)` is code.

[api]: https://docs.nvidia.com/nvshmem/api/index.html

```text
[also not a link](nowhere.md)
```
"""

PUT = """\
# `put` and `get`

```rust,ignore
{{#include ../../../../code/lib.rs:ring_put}}
```

## Again

See [again](#again) and [the top](#put-and-get).
"""

ORDERING = """\
# Quiet and fence

```rust
{{#include ../../../../code/lib.rs:nested}}
```

```shell
cargo build
```
"""


class CheckGuide(unittest.TestCase):
    def setUp(self):
        self.temporary = tempfile.TemporaryDirectory()
        root = Path(self.temporary.name)
        self.guide = root / "docs/guide"
        self.write("../../code/lib.rs", SOURCE)
        self.write("book.toml", "[book]\ntitle = \"t\"\n")
        self.write("src/SUMMARY.md", SUMMARY)
        self.write("src/introduction.md", INTRODUCTION)
        self.write("src/concepts/put.md", PUT)
        self.write("src/concepts/ordering.md", ORDERING)

    def tearDown(self):
        self.temporary.cleanup()

    def write(self, relative, text):
        path = self.guide / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def edit(self, relative, old, new):
        path = self.guide / relative
        text = path.read_text(encoding="utf-8")
        self.assertIn(old, text, "the planted defect must change the page")
        path.write_text(text.replace(old, new), encoding="utf-8")

    def assert_fails(self, *needles):
        problems = check_guide.check(self.guide)
        self.assertEqual(len(problems), 1, problems)
        for needle in needles:
            self.assertIn(needle, problems[0])

    def test_the_intact_guide_passes(self):
        self.assertEqual(check_guide.check(self.guide), [])

    def test_a_listed_page_that_does_not_exist(self):
        (self.guide / "src/concepts/ordering.md").unlink()
        problems = check_guide.check(self.guide)
        self.assertTrue(any("lists concepts/ordering.md, which does not exist" in p for p in problems))

    def test_a_page_missing_from_the_summary(self):
        self.write("src/concepts/signals.md", "# Signals\n")
        self.assert_fails("signals.md: not listed in", "SUMMARY.md")

    def test_a_draft_chapter(self):
        self.edit("src/SUMMARY.md", "(concepts/ordering.md)", "()")
        problems = check_guide.check(self.guide)
        self.assertTrue(any("an entry without a page" in p for p in problems), problems)

    def test_a_link_to_a_missing_file(self):
        self.edit("src/introduction.md", "../../../code/lib.rs", "../../../code/main.rs")
        self.assert_fails("introduction.md:4", "code/main.rs does not exist")

    def test_a_reference_link_to_a_missing_file(self):
        self.edit("src/introduction.md", "https://docs.nvidia.com/nvshmem/api/index.html", "api.md")
        self.assert_fails("introduction.md:7", "api.md does not exist")

    def test_a_link_to_a_missing_heading(self):
        self.edit("src/introduction.md", "#quiet-and-fence", "#quiet-fence")
        self.assert_fails("introduction.md:3", "no heading with id `quiet-fence`", "quiet-and-fence")

    def test_a_link_to_a_missing_heading_of_the_same_page(self):
        self.edit("src/concepts/put.md", "(#again)", "(#once-more)")
        self.assert_fails("put.md:9", "`once-more`")

    def test_an_include_of_a_missing_file(self):
        self.edit("src/concepts/put.md", "code/lib.rs", "code/main.rs")
        self.assert_fails("put.md:4", "code/main.rs does not exist")

    def test_an_include_of_a_missing_anchor(self):
        self.edit("src/concepts/put.md", ":ring_put", ":ring_get")
        self.assert_fails("put.md:4", "no `ANCHOR: ring_get`")

    def test_an_anchor_without_its_end(self):
        self.write("../../code/lib.rs", SOURCE.replace("// ANCHOR_END: nested\n", ""))
        self.assert_fails("ordering.md:4", "no `ANCHOR: nested`")

    def test_an_include_without_an_anchor_or_by_line_numbers(self):
        self.edit("src/concepts/put.md", ":ring_put", "")
        self.assert_fails("put.md:4", "names no anchor")
        self.edit("src/concepts/put.md", "lib.rs}}", "lib.rs:2:3}}")
        self.assert_fails("put.md:4", "line numbers drift")

    def test_inline_rust(self):
        self.edit("src/concepts/ordering.md", "```shell", "```rust")
        self.assert_fails("ordering.md:7", "inline code, which no compiler checks")

    def test_inline_rust_beside_an_include(self):
        self.edit("src/concepts/put.md", ":ring_put}}\n", ":ring_put}}\nfn extra() {}\n")
        self.assert_fails("put.md:3", "inline code")

    def test_a_fact_restated_away_from_its_home(self):
        self.edit(
            "src/concepts/ordering.md",
            "# Quiet and fence\n",
            "# Quiet and fence\n\nThe allocation check of\n`nvshmem.alloc` is off in release builds.\n",
        )
        self.assert_fails("ordering.md:3", "in which builds the allocation check is on",
                          "concepts/symmetric-heap.md")

    def test_a_heap_default_restated_away_from_its_home(self):
        self.edit("src/introduction.md", "# Introduction\n", "# Introduction\n\nThe heap is 1 GiB by default.\n")
        self.assert_fails("introduction.md:3", "the symmetric heap's default size")

    def test_a_fact_on_its_home_page_passes(self):
        self.edit("src/SUMMARY.md", "    - [Ordering]", "    - [Heap](concepts/symmetric-heap.md)\n    - [Ordering]")
        self.write(
            "src/concepts/symmetric-heap.md",
            "# Heap\n\nIt grows up to 128 GiB by default. The allocation check is on in every build.\n",
        )
        self.assertEqual(check_guide.check(self.guide), [])

    def test_a_missing_book_toml(self):
        (self.guide / "book.toml").unlink()
        self.assert_fails("book.toml: missing")

    def test_heading_ids_follow_mdbook(self):
        ids = check_guide.heading_ids(
            "# `put_nbi` and [quiet](x.md)\n## Put, get & MPI's send/recv\n# Again\n# Again\n"
        )
        self.assertEqual(ids, {"put_nbi-and-quiet", "put-get--mpis-sendrecv", "again", "again-1"})


if __name__ == "__main__":
    unittest.main()
