"""Markdown tables, and the side files that hold tables too long to show inline."""

from pathlib import Path

INLINE_ROW_LIMIT = 60


def markdown_table(header, rows):
    """A GitHub-flavoured table; '|' and line breaks in cells are escaped."""
    def clean(cell):
        return str(cell).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(clean(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(clean(c) for c in row) + " |" for row in rows]
    return lines


class TableSink:
    """Puts long tables into tables/<slug>.md and shows their anchor rows inline."""

    def __init__(self, out_dir, slug, title, sm_count):
        self.path = Path("tables") / f"{slug}.md"
        self.out_dir = out_dir
        self.title = title
        self.sm_count = sm_count
        self.sections = []

    def place(self, heading, header, rows):
        """Inline lines for one table; rows is [(Cell, table cells)]."""
        if len(rows) <= INLINE_ROW_LIMIT:
            return markdown_table(header, [cells for _, cells in rows])
        self.sections += [f"## {heading}", ""] + markdown_table(
            header, [cells for _, cells in rows]) + [""]
        anchors = anchor_cells([cell for cell, _ in rows], self.sm_count)
        subset = [cells for cell, cells in rows if cell in anchors]
        return [f"{len(rows)} rows: the full table is in [{self.path.as_posix()}]"
                f"({self.path.as_posix()}); shown here are the GPU-only, CPU-only and mixed "
                "anchor cells.", ""] + markdown_table(header, subset)

    def write(self):
        if not self.sections:
            return
        target = self.out_dir / self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        text = [f"# {self.title}: full tables", "", "Back to [the report](../report.md).", ""]
        target.write_text("\n".join(text + self.sections).rstrip("\n") + "\n", encoding="utf-8")


def anchor_cells(cells, sm_count):
    """Cells a shortened table keeps: both ends of the GPU-only and CPU-only ranges, every
    CPU-thread count at one block per SM (else at the widest mixed GPU configuration), and
    the smallest mixed cell."""
    anchors = set()
    gpu_only = sorted(c for c in cells if c.cpu == 0 and c.blocks > 0)
    cpu_only = sorted(c for c in cells if c.blocks == 0)
    mixed = sorted(c for c in cells if c.is_mixed)
    for run in (gpu_only, cpu_only):
        if run:
            anchors.update((run[0], run[-1]))
    if mixed:
        per_sm = [c for c in mixed if c.blocks == sm_count]
        widest = max((c.blocks, c.threads) for c in per_sm or mixed)
        anchors.update(c for c in mixed if (c.blocks, c.threads) == widest)
        anchors.add(mixed[0])
    return anchors
