#!/usr/bin/env python3
"""Counts individual test cases of a meson test run.

    count-tests.py BUILD/meson-logs/testlog.json

meson writes, next to testlog.json (one line per test program and its result), a
testlog.junit.xml into which it copies the XML report of every GoogleTest program run
with protocol 'gtest' (its suites are named "<project>.<test>.<gtest suite>", <test>
being the name testlog.json gives) and the subtests of TAP programs ("<project>.<test>").
Each such case counts once; any
other test counts as one case with its own result. A program that failed as a whole
(crash, timeout) without a failed case of its own counts one more failure.
Prints "N passed, N failed, N skipped".
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

PASSED_RESULTS = ("OK", "EXPECTEDFAIL")


def case_outcome(case):
    if case.find("failure") is not None or case.find("error") is not None:
        return "failed"
    if case.find("skipped") is not None or case.get("result") == "skipped" \
            or case.get("status") == "notrun":
        return "skipped"
    return "passed"


def junit_suites(junit_path):
    """(name less its "<project>." prefix, counts of its cases) for every suite."""
    suites = []
    if not os.path.exists(junit_path):
        return suites
    root = ET.parse(junit_path).getroot()
    for suite in root.iter("testsuite"):
        parts = suite.get("name", "").split(".", 1)
        if len(parts) < 2:
            continue  # "<project>": plain exit-code tests, counted from testlog.json
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        for case in suite.iter("testcase"):
            counts[case_outcome(case)] += 1
        suites.append((parts[1], counts))
    return suites


def cases_of(test, suites):
    """Counts of the cases recorded for one test program, or None."""
    found = None
    for rest, counts in suites:
        # GoogleTest suite names have no dots; test names may
        if rest == test or (rest.startswith(test + ".") and "." not in rest[len(test) + 1:]):
            found = found or {"passed": 0, "failed": 0, "skipped": 0}
            for k in found:
                found[k] += counts[k]
    return found


def main():
    log = sys.argv[1]
    total = {"passed": 0, "failed": 0, "skipped": 0}
    if not os.path.exists(log):
        print("0 passed, 1 failed, 0 skipped")
        return
    suites = junit_suites(os.path.join(os.path.dirname(log), "testlog.junit.xml"))
    with open(log) as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            result = t.get("result", "FAIL")
            counts = cases_of(t.get("name", ""), suites)
            if counts:
                if result not in PASSED_RESULTS + ("SKIP",) and counts["failed"] == 0:
                    counts["failed"] += 1
            else:
                counts = {"passed": 0, "failed": 0, "skipped": 0}
                if result in PASSED_RESULTS:
                    counts["passed"] = 1
                elif result == "SKIP":
                    counts["skipped"] = 1
                else:
                    counts["failed"] = 1
            for k in total:
                total[k] += counts[k]
    print(f"{total['passed']} passed, {total['failed']} failed, {total['skipped']} skipped")


if __name__ == "__main__":
    main()
