#!/usr/bin/env python3
"""Whole-checkpoint figures for issue 34: each command's wall time, the rate over the bytes it
reads, and its peak resident memory split into file pages (the mapped checkpoint, page cache the
kernel can drop) and anonymous memory (what the command itself allocates), sampled from
/proc/PID/status every 10 ms; against `cat FILES > /dev/null` on a warm page cache.

Usage: checkpoint_table.py CLI RUNS 'LABEL|FILES...|ARGS...' ...
  FILES: the files the command reads (a folder counts as every file in it), for the rate and cat;
  ARGS:  quantscope-cli's arguments. Each command runs RUNS times after one cat; the best is kept.
"""
import os
import subprocess
import sys
import time


def files_of(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p) if os.path.isfile(os.path.join(p, f)))
        else:
            out.append(p)
    return out


def run(cmd):
    """Wall seconds, peak VmRSS and peak RssAnon (KiB) of cmd."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_rss = peak_anon = 0
    while proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        peak_rss = max(peak_rss, int(line.split()[1]))
                    elif line.startswith("RssAnon:"):
                        peak_anon = max(peak_anon, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            pass
        time.sleep(0.01)
    wall = time.monotonic() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {proc.returncode}")
    return wall, peak_rss, peak_anon


def main():
    cli, runs = sys.argv[1], int(sys.argv[2])
    print(f"load at start: {open('/proc/loadavg').read().strip()}")
    print(f"{'command':34} {'GB read':>8} {'cat s':>7} {'cat GB/s':>9} {'s':>7} {'GB/s':>7} {'of cat':>7} "
          f"{'peak RSS MiB':>13} {'anon MiB':>9}")
    for spec in sys.argv[3:]:
        label, files, args = spec.split("|")
        paths = files_of(files.split())
        size = sum(os.path.getsize(p) for p in paths)
        cat = min(run(["cat", *paths])[0] for _ in range(runs + 1))
        best = min((run([cli, *args.split()]) for _ in range(runs)), key=lambda r: r[0])
        wall, rss, anon = best
        print(f"{label:34} {size / 1e9:8.2f} {cat:7.2f} {size / 1e9 / cat:9.2f} {wall:7.2f} {size / 1e9 / wall:7.2f} "
              f"{cat / wall:7.2f} {rss / 1024:13.0f} {anon / 1024:9.0f}")
    print(f"load at end: {open('/proc/loadavg').read().strip()}")


if __name__ == "__main__":
    main()
