"""Puts a section of BENCHMARKS.md, read from standard input, in its place: the section whose
heading is the input's first line is replaced (up to the next heading), or the input is
appended when there is none; then prints it. Used by scripts/bench.sh, whose parts each write
their own section."""
import sys

section = sys.stdin.read().strip("\n") + "\n"
heading = section.splitlines()[0]
text = open("BENCHMARKS.md").read()
start = text.find(heading + "\n")
if start >= 0:
    end = text.find("\n## ", start + 1)
    rest = text[end + 1:] if end >= 0 else ""
    text = text[:start] + section + ("\n" + rest if rest else "")
else:
    text = text.rstrip("\n") + "\n\n" + section
open("BENCHMARKS.md", "w").write(text)
print(section)
