"""Replaces the text between two HTML-comment markers of a Markdown file.

usage: replace_section.py DOC NAME TITLE TEXT
Writes TEXT between "<!-- BEGIN NAME -->" and "<!-- END NAME -->" of DOC; when
the markers are missing, appends a "## TITLE" section holding them.
"""
import sys


def replace_section(doc, name, title, body):
    begin, end = f"<!-- BEGIN {name} -->", f"<!-- END {name} -->"
    text = open(doc).read()
    if begin not in text:
        text += f"\n## {title}\n\n{begin}\n{end}\n"
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    open(doc, "w").write(head + begin + "\n" + body + "\n" + end + tail)


if __name__ == "__main__":
    replace_section(*sys.argv[1:5])
