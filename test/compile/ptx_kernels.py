"""What the PTX checks of test/compile share: a kernel's lines, and the report."""

import re
import sys


def kernel_lines(ptx, kernel):
    """The lines of the body of the kernel whose (mangled) name contains `kernel`; exits
    when there is none."""
    match = re.search(r"\.entry\s+\S*" + kernel + r"\S*\s*\((.*?)\n\}", ptx, re.S)
    if not match:
        sys.exit(f"no kernel {kernel} in the PTX")
    return match.group(1).splitlines()


def report(failures, checked):
    """Prints each failure and a summary of what was `checked`; the exit status."""
    for failure in failures:
        print(failure)
    print(f"{'FAILED' if failures else 'passed'}: {checked}")
    return 1 if failures else 0
