#!/usr/bin/env python3
"""Checks the PTX of test/compile/atomic_orders.cu: each of atomic_at's read-modify-writes
carries the orders and fences that cuda::atomic_ref's carries for the same call, and is in
the global state space (the point of atomic_at on the GPU, detail/global_atomic.hpp).

Usage: check_atomic_orders.py FILE.ptx"""

import re
import sys

from ptx_kernels import kernel_lines, report

EXPECTED_CALLS = 6 * (4 + 3) + 1  # per order: four operations, three failure orders; seq_cst twice


def calls(ptx, kernel):
    """The kernel's calls, each the list of its atomics and fences, qualifiers sorted."""
    result, current = [], []
    for line in kernel_lines(ptx, kernel):
        line = line.strip()
        if line.startswith("// next call"):
            result.append(current)
            current = []
            continue
        # An optional guard predicate, the opcode, then its qualifiers up to a space or
        # the semicolon (a fence has no operands).
        instruction = re.match(r"(?:@!?%\w+\s+)?(atom|fence|membar|red)\.([^\s;]+)", line)
        if instruction:
            qualifiers = instruction.group(2).split(".")
            current.append((instruction.group(1), sorted(qualifiers)))
    return result


def without_space(call):
    return [(name, [q for q in qualifiers if q != "global"]) for name, qualifiers in call]


def main():
    ptx = open(sys.argv[1]).read()
    failures = []
    for scope in ("device", "system"):
        reference, ours = calls(ptx, f"libcudacxx_{scope}"), calls(ptx, f"unisync_{scope}")
        if len(reference) != EXPECTED_CALLS or len(ours) != EXPECTED_CALLS:
            failures.append(f"{scope}: {len(reference)} and {len(ours)} calls, expected {EXPECTED_CALLS}")
            continue
        for index, (theirs, mine) in enumerate(zip(reference, ours)):
            atoms = sum(1 for name, _ in mine if name == "atom")
            if atoms != 1:
                failures.append(f"{scope} call {index}: {atoms} atom instructions in atomic_at's, expected 1")
            if without_space(theirs) != without_space(mine):
                failures.append(f"{scope} call {index}: libcu++ {theirs}, atomic_at {mine}")
            for name, qualifiers in mine:
                if name == "atom" and "global" not in qualifiers:
                    failures.append(f"{scope} call {index}: atomic_at's {name}.{'.'.join(qualifiers)} is generic")
    return report(failures, f"{2 * EXPECTED_CALLS} calls compared")


if __name__ == "__main__":
    sys.exit(main())
