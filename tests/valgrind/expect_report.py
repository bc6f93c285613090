#!/usr/bin/env python3
"""Runs a command that must fail under valgrind with a given report.

    expect_report.py STATUS NEEDLE -- COMMAND...

Passes only if COMMAND exits with STATUS (valgrind's --error-exitcode) and its
output names NEEDLE (the canary function in the report's stack), so that a crash
or a usage error cannot pass for a detected mistake.
"""
import subprocess
import sys


def main():
    status, needle, sep, *command = sys.argv[1:]
    assert sep == "--", __doc__
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(run.stdout)
    if run.returncode != int(status):
        print(f"expected exit status {status} (valgrind found the mistake), got {run.returncode}")
        return 1
    if needle not in run.stdout:
        print(f"valgrind's report does not name {needle}")
        return 1
    print(f"valgrind reported {needle} as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
