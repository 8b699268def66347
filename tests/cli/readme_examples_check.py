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
    printf = "$ printf 'time 0.25 s\\nrows 3\\ndone\\n'\n"
    # Numbers may differ; words and rows may not.
    code, err, _ = run(script, page(printf + "time 9.99 s\nrows 7\ndone\n"))
    expect("numbers differ", code, 0)
    code, err, _ = run(script, page(printf + "time 0.25 s\ncolumns 3\ndone\n"))
    expect("a word differs", code, 1)
    expect("a word differs, named", "not printed now" in err and "columns 3" in err, True)
    # Left out: with a … it passes, without it fails.
    code, _, _ = run(script, page(printf + "time 0.25 s\n…\n"))
    expect("cut with …", code, 0)
    code, err, _ = run(script, page(printf + "time 0.25 s\n"))
    expect("cut without …", code, 1)
    expect("cut without …, named", "left out without a …" in err, True)
    code, err, _ = run(script, page(printf + "time 0.25 s\ndone\n"))
    expect("a middle line cut without …", code, 1)
    # A line cut short: its first words, then " …".
    code, _, _ = run(script, page(printf + "time 0.25 …\nrows 3\ndone\n"))
    expect("a line cut short", code, 0)
    code, _, _ = run(script, page(printf + "time 0.25 s\nrows 3 and …\ndone\n"))
    expect("a line cut short, not alike", code, 1)
    # stdout and stderr: each in order, interleaved either way (mpirun relays
    # them apart); within one stream the order holds.
    streams = "$ printf 'progress\\n' >&2; printf 'alpha 1\\nbeta 2\\n'\n"
    code, _, _ = run(script, page(streams + "progress\nalpha 1\nbeta 2\n"))
    expect("streams as written", code, 0)
    code, _, _ = run(script, page(streams + "alpha 1\nbeta 2\nprogress\n"))
    expect("streams interleaved the other way", code, 0)
    code, err, _ = run(script, page(streams + "progress\nbeta 2\nalpha 1\n"))
    expect("one stream out of order", code, 1)
    expect("one stream out of order, what it printed shown", "stdout: alpha 1" in err, True)
    # A failing command.
    code, err, _ = run(script, page("$ printf 'x\\n'; exit 3\nx\n"))
    expect("exit status", code, 1)
    expect("exit status, named", "exit 3" in err, True)
    # Manual blocks run only with --all.
    manual = "<!-- examples: manual (a test) -->\n" + page("$ exit 4\n").split("\n", 2)[2]
    code, _, _ = run(script, "# t\n\n" + manual)
    expect("manual skipped", code, 0)
    code, _, _ = run(script, "# t\n\n" + manual, "--all")
    expect("manual with --all", code, 1)
    # --update: new numbers, the missing …, the rest of the file unchanged.
    code, _, text = run(script, page(printf + "time 9.99 s\ndone\n") + "tail\n", "--update")
    expect("update", code, 0)
    expect("update text", text, page(printf + "time 0.25 s\n…\ndone\n") + "tail\n")
    print("readme_examples_check: 18 cases passed")


if __name__ == "__main__":
    main()
