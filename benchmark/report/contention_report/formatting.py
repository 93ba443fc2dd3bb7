"""Numbers and words as the report prints them, in tables and on plots alike."""

MISSING = "—"


def plural(count, word, many=None):
    """'1 cell', '2 cells'; many gives an irregular plural."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def compact(value):
    """Three significant digits with k/M/G suffixes: short enough for heatmap cells and tables."""
    if value is None:
        return MISSING
    magnitude = abs(value)
    for limit, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if magnitude >= limit:
            return f"{value / limit:.3g}{suffix}"
    return f"{value:.3g}"


def format_ratio(ratio):
    """A ratio like 3.2x; small ratios keep two significant digits so they do not read as 0."""
    if ratio is None:
        return MISSING
    if ratio >= 10:
        return f"{ratio:.0f}x"
    if ratio >= 1:
        return f"{ratio:.1f}x"
    return f"{ratio:.2g}x"
