"""Reads ccl_bench's CSV (with its '# key: value' header) and bench/anchors.csv."""
import csv
import os

ANCHORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "anchors.csv")


def _number(text):
    return float(text) if text not in ("", None) else None


def read_results(path):
    """Returns (header dict, list of row dicts); numeric columns as float or None."""
    header, lines = {}, []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                key, _, value = line[1:].partition(":")
                header[key.strip()] = value.strip()
            else:
                lines.append(line)
    rows = []
    text_columns = {"image", "algorithm", "mode", "check", "reference", "goal_met"}
    for row in csv.DictReader(lines):
        rows.append({k: (v if k in text_columns else _number(v)) for k, v in row.items()})
    return header, rows


def read_anchors(path=ANCHORS):
    with open(path, newline="") as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def case_key(row):
    return (int(row["width"]), int(row["height"]), round(row["density"], 3), int(row["granularity"]))


def reportable(row):
    return row["check"] in ("ok", "unchecked")
