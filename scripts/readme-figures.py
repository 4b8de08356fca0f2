#!/usr/bin/env python3
"""Writes the README's performance table from the figures the benchmarks recorded.

Each benchmark prints its headline figures and, when the environment variable BENCH_FIGURES
names a file, appends them to it as JSON lines (`recordFigure` in Benchmarks' BenchmarkSupport):
name, data, result, date and the command that measured it. This script turns
Benchmarks/figures.jsonl into the table between the README's `<!-- figures -->` and
`<!-- /figures -->` markers, so the README shows what a benchmark printed, never a number typed
by hand. A later line with the same name and data replaces an earlier one.

    BENCH_FIGURES=$PWD/Benchmarks/figures.jsonl swift run -c release --package-path Benchmarks PostgresBenchmarks
    python3 scripts/readme-figures.py           # rewrites the table
    python3 scripts/readme-figures.py --check   # exits 1 when the table differs from the figures
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIGURES = ROOT / "Benchmarks" / "figures.jsonl"
README = ROOT / "README.md"
START, END = "<!-- figures -->", "<!-- /figures -->"


def load_figures():
    """The latest figure of each (name, data), in the order each first appeared."""
    figures = {}
    for number, line in enumerate(FIGURES.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            key = (entry["name"], entry["data"])
            figures[key] = {k: str(entry[k]) for k in ("name", "data", "result", "date", "command")}
        except (ValueError, KeyError, TypeError) as error:
            sys.exit(f"{FIGURES.relative_to(ROOT)}:{number}: not a figure ({error})")
    return list(figures.values())


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def table(figures):
    lines = ["| figure | data | result | measured |", "|---|---|---|---|"]
    for figure in figures:
        lines.append(f"| {cell(figure['name'])} | {cell(figure['data'])} | {cell(figure['result'])} | "
                     f"{cell(figure['date'])}, `{cell(figure['command'])}` |")
    return "\n".join(lines)


def main():
    check = "--check" in sys.argv[1:]
    text = README.read_text(encoding="utf-8")
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"README.md has no {START} … {END} markers")
    rendered = text[: start + len(START)] + "\n" + table(load_figures()) + "\n" + text[end:]
    if check:
        if rendered != text:
            sys.exit("README.md's performance table differs from Benchmarks/figures.jsonl: run python3 scripts/readme-figures.py")
        return
    README.write_text(rendered, encoding="utf-8")


if __name__ == "__main__":
    main()
