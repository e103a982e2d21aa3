"""msrun's guard: `python -I -S .../msx/run/guard.py`, one per msrun, in its own session.

msrun writes `add PGID` to its stdin for each worker's process group and `done` once it has reaped them. If
stdin ends without `done`, msrun died (SIGKILL included: the kernel closes its end of the pipe), and the guard
SIGKILLs every group it was given: the workers (which `PR_SET_PDEATHSIG` kills too) and what they started,
which no death signal reaches. Run by its path with the standard library only, so it starts in milliseconds.
"""
import os
import signal
import sys


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is msrun's to handle; the guard outlives it
    groups = []
    for line in sys.stdin.buffer:
        word, _, arg = line.strip().partition(b" ")
        if word == b"add":
            groups.append(int(arg))
        elif word == b"done":
            return
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:  # the group is gone already
            pass


if __name__ == "__main__":
    main()
