#!/usr/bin/env python3
"""Checks the PTX of test/compile/tile_group_syncs.cu: a tile's vote orders no memory, so
the tile overloads must sync the tile (bar.warp.sync) after the vote that tells the lanes
the leader's acquire succeeded, and before the ballot that counts the lanes whose writes
the leader then releases.

Usage: check_tile_group_syncs.py FILE.ptx"""

import re
import sys

from ptx_kernels import kernel_lines, report

# Kernel name -> what its instructions must show, in order.
SPREADS_ACQUIRE = ("try_lock_tile32", "try_lock_tile8")
COUNTS_BEFORE_RELEASE = ("count_down_tile32", "count_down_tile8", "arrive_and_wait_tile32")


def instructions(ptx, kernel):
    """The kernel's votes, warp syncs and atomics, in the order of the PTX text; a call
    would hide instructions from that order (a debug build's), so it is reported."""
    found = []
    for line in kernel_lines(ptx, kernel):
        instruction = re.match(r"\s*(?:@!?%\w+\s+)?(vote\.sync|bar\.warp\.sync|atom|red|call)\b", line)
        if instruction:
            found.append(instruction.group(1))
    return found


def check(kernel, found):
    if "vote.sync" not in found:
        return f"{kernel}: no vote ({found})"
    first_vote = found.index("vote.sync")
    last_vote = len(found) - 1 - found[::-1].index("vote.sync")
    # The stretch the property is about: from the start to the sync after the last vote
    # (spreading an acquire), or to the first vote and the atomic after it (counting).
    if kernel in SPREADS_ACQUIRE:
        if "atom" not in found[:first_vote]:
            return f"{kernel}: the leader's atomic does not come before the vote ({found})"
        if "bar.warp.sync" not in found[last_vote + 1:]:
            return f"{kernel}: no warp sync after the vote that spreads the leader's acquire ({found})"
        checked = found[: found.index("bar.warp.sync", last_vote + 1)]
    else:
        if "bar.warp.sync" not in found[:first_vote]:
            return f"{kernel}: no warp sync before the ballot that counts the lanes ({found})"
        after = [i for i, name in enumerate(found) if i > last_vote and name in ("atom", "red")]
        if not after:
            return f"{kernel}: the leader's atomic does not follow the ballot ({found})"
        checked = found[: after[0]]
    if "call" in checked:
        return f"{kernel}: calls a function there, whose instructions this check cannot order ({found})"
    return None


def main():
    ptx = open(sys.argv[1]).read()
    kernels = SPREADS_ACQUIRE + COUNTS_BEFORE_RELEASE
    failures = [f for f in (check(k, instructions(ptx, k)) for k in kernels) if f]
    return report(failures, f"{len(kernels)} tile overloads checked")


if __name__ == "__main__":
    sys.exit(main())
