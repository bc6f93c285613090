#!/usr/bin/env python3
"""Counts individual test cases from meson's JSON test log.

GoogleTest binaries run with protocol 'gtest' write a JUnit XML per run; each of its
test cases counts once. TAP tests count each reported subtest. Any other test counts
as one case with its own result. Prints "N passed, N failed, N skipped".
"""
import json
import os
import sys
import xml.etree.ElementTree as ET

def gtest_cases(xml_path):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    root = ET.parse(xml_path).getroot()
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
        elif case.get("result") == "skipped" or case.find("skipped") is not None \
                or case.get("status") == "notrun":
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts

def tap_cases(stdout):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("not ok"):
            counts["failed"] += 1
        elif line.startswith("ok"):
            key = "skipped" if "# SKIP" in line.upper() else "passed"
            counts[key] += 1
    return counts

def main():
    total = {"passed": 0, "failed": 0, "skipped": 0}
    log = sys.argv[1]
    if not os.path.exists(log):
        print("0 passed, 1 failed, 0 skipped")
        return
    with open(log) as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            result = t.get("result", "FAIL")
            counts = None
            xml = t.get("env", {}).get("GTEST_OUTPUT", "")
            if t.get("protocol") == "gtest" or xml.startswith("xml:"):
                path = xml[4:] if xml.startswith("xml:") else ""
                if path and os.path.exists(path):
                    counts = gtest_cases(path)
                    # a crash after some cases: the binary failed as a whole too
                    if result not in ("OK", "SKIP", "EXPECTEDFAIL") and counts["failed"] == 0:
                        counts["failed"] += 1
            elif t.get("protocol") == "tap":
                counts = tap_cases(t.get("stdout", ""))
                if result not in ("OK", "SKIP") and counts["failed"] == 0:
                    counts["failed"] += 1
            if counts is None:
                counts = {"passed": 0, "failed": 0, "skipped": 0}
                if result == "OK":
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
