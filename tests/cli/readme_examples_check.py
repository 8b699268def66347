#!/usr/bin/env python3
"""Checks scripts/readme-examples on small Markdown files of its own: a shown
line must be found alike but for numbers, left-out lines need a `…`, stdout
and stderr keep their own order but not each other's, a failing command is
reported, and --update writes the new output.

    readme_examples_check.py SCRIPT
"""
import os
import subprocess
import sys
import tempfile

FENCE = "```"


def page(*blocks):
    return "# t\n\n" + "\n".join(f"{FENCE}console\n{b}{FENCE}\n" for b in blocks)


def run(script, text, *flags):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "README.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        proc = subprocess.run([sys.executable, script, path, *flags], capture_output=True,
                              text=True, timeout=60)
        with open(path, encoding="utf-8") as f:
            return proc.returncode, proc.stderr, f.read()


def expect(name, got, want):
    if got != want:
        sys.exit(f"readme_examples_check: {name}: got {got!r}, want {want!r}")


def main():
    script = sys.argv[1]

    def check(name, text, want, *said, flags=()):
        """The script on a page: its exit status, and words its report must hold."""
        code, err, _ = run(script, text, *flags)
        expect(name, code, want)
        for words in said:
            expect(f"{name}, saying {words!r}", words in err, True)

    printf = "$ printf 'time 0.25 s\\nrows 3\\ndone\\n'\n"
    # Numbers may differ; words and rows may not.
    check("numbers differ", page(printf + "time 9.99 s\nrows 7\ndone\n"), 0)
    check("a word differs", page(printf + "time 0.25 s\ncolumns 3\ndone\n"), 1,
          "not printed now", "columns 3")
    # Left out: with a … it passes, without it fails.
    check("cut with …", page(printf + "time 0.25 s\n…\n"), 0)
    check("cut without …", page(printf + "time 0.25 s\n"), 1, "left out without a …")
    check("a middle line cut without …", page(printf + "time 0.25 s\ndone\n"), 1)
    # A line cut short: its first words, then " …".
    check("a line cut short", page(printf + "time 0.25 …\nrows 3\ndone\n"), 0)
    check("a line cut short, not alike", page(printf + "time 0.25 s\nrows 3 and …\ndone\n"), 1)
    # stdout and stderr: each in order, interleaved either way (mpirun relays
    # them apart); within one stream the order holds.
    streams = "$ printf 'progress\\n' >&2; printf 'alpha 1\\nbeta 2\\n'\n"
    check("streams as written", page(streams + "progress\nalpha 1\nbeta 2\n"), 0)
    check("streams interleaved the other way", page(streams + "alpha 1\nbeta 2\nprogress\n"), 0)
    check("one stream out of order", page(streams + "progress\nbeta 2\nalpha 1\n"), 1,
          "stdout: alpha 1")
    # A failing command.
    check("exit status", page("$ printf 'x\\n'; exit 3\nx\n"), 1, "exit 3")
    # Manual blocks run only with --all.
    manual = "<!-- examples: manual (a test) -->\n" + page("$ exit 4\n").split("\n", 2)[2]
    check("manual skipped", "# t\n\n" + manual, 0)
    check("manual with --all", "# t\n\n" + manual, 1, flags=("--all",))
    # --update: new numbers, the missing …, the rest of the file unchanged.
    code, _, text = run(script, page(printf + "time 9.99 s\ndone\n") + "tail\n", "--update")
    expect("update", code, 0)
    expect("update text", text, page(printf + "time 0.25 s\n…\ndone\n") + "tail\n")
    print("readme_examples_check: 14 cases passed")


if __name__ == "__main__":
    main()
