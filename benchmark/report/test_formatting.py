#!/usr/bin/env python3
"""Tests for contention_report.formatting: numbers and words in the report."""

import unittest

from contention_report.formatting import MISSING, compact, format_ratio, plural


class Formatting(unittest.TestCase):
    def test_ratio_format(self):
        self.assertEqual(format_ratio(3.2), "3.2x")
        self.assertEqual(format_ratio(0.0312), "0.031x")
        self.assertEqual(format_ratio(123.4), "123x")
        self.assertEqual(format_ratio(None), MISSING)

    def test_compact_keeps_three_digits(self):
        self.assertEqual(compact(1234.0), "1.23k")
        self.assertEqual(compact(2.5e6), "2.5M")
        self.assertEqual(compact(0.0412), "0.0412")
        self.assertEqual(compact(None), MISSING)

    def test_plural(self):
        self.assertEqual(plural(1, "cell"), "1 cell")
        self.assertEqual(plural(2, "entry", "entries"), "2 entries")


if __name__ == "__main__":
    unittest.main()
