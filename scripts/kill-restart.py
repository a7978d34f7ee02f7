#!/usr/bin/env python3
"""Kill an easyml-bench or easyml-tissue run with SIGKILL at random moments
(each after the run wrote a new checkpoint), continue it each time with
--restart from its last checkpoint, and check that every output file is
byte-identical to an uninterrupted run's and that no temporary file is
left.

  kill-restart.py --bench build/bin/easyml-bench --kills 10 --dir /tmp/kr \\
      [--mpirun "mpirun -np 3"] [--restart-mpirun "mpirun -np 2"] \\
      [--restart-args "--devices cpu"] -- --load-module lr.so --num 512 ...
  kill-restart.py --bench build/bin/easyml-tissue --copy cfg.json \\
      --every 5 --dir /tmp/kr -- cfg.json -q

The run's own options come after "--"; the script adds --checkpoint and
--checkpoint-every. The runs work in DIR/ref and DIR/run, each with a copy
of the --copy files (a tissue's configuration that writes to "."). Prints
one line per kill and a summary (--json FILE for scripts). Exit status 0
when every file matches.
"""

import argparse
import filecmp
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time


def run_to_end(cmd, cwd, env):
    t0 = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"kill-restart: error: {' '.join(cmd)} failed "
                 f"({p.returncode}): {p.stderr.strip()}")
    return time.monotonic() - t0


def kill_session(sid):
    """SIGKILL to every process of session `sid` (mpirun puts each rank in a
    process group of its own; a preempted job loses them all at once)."""
    while True:
        pids = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                pids.append(int(entry))
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.01)


def kill_at(cmd, cwd, env, delay):
    """Starts `cmd` in its own session, waits for it to write a new
    checkpoint (so that every restart has one to go on from), then kills
    the session `delay` s later. True when it was killed, False when it
    finished first."""
    ck = os.path.join(cwd, "ck.bin")
    def stamp():
        try:
            return os.stat(ck).st_mtime_ns
        except OSError:
            return None
    before = stamp()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    while p.poll() is None and stamp() == before:
        time.sleep(0.005)
    try:
        p.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        kill_session(p.pid)
        return True
    err = p.stderr.read()
    if p.returncode != 0:
        sys.exit(f"kill-restart: error: {' '.join(cmd)} failed "
                 f"({p.returncode}): {err.strip()}")
    return False


def outputs(directory):
    return sorted(f for f in os.listdir(directory)
                  if f not in ("ck.bin", "lr.so") and not f.endswith(".so"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--every", default="50",
                    help="--checkpoint-every (ms)")
    ap.add_argument("--mpirun", default="")
    ap.add_argument("--restart-mpirun", default=None,
                    help="launcher of the restarts (default: --mpirun)")
    ap.add_argument("--restart-args", default="",
                    help="options added to every other restart (other "
                    "devices)")
    ap.add_argument("--copy", action="append", default=[],
                    help="a file copied into both working folders")
    ap.add_argument("--json", default="")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    rng = random.Random(a.seed)
    bench = [os.path.abspath(a.bench) if os.path.exists(a.bench)
             else shutil.which(a.bench) or a.bench]
    first = shlex.split(a.mpirun) + bench
    again = shlex.split(a.mpirun if a.restart_mpirun is None
                        else a.restart_mpirun) + bench
    env = dict(os.environ)

    shutil.rmtree(a.dir, ignore_errors=True)
    ref, work = os.path.join(a.dir, "ref"), os.path.join(a.dir, "run")
    os.makedirs(ref)
    os.makedirs(work)
    for f in a.copy:
        shutil.copy(f, ref)
        shutil.copy(f, work)
    whole = run_to_end(first + args, ref, env)
    print(f"uninterrupted run: {whole:.2f} s, {len(outputs(ref))} files")

    ck = ["--checkpoint", "ck.bin", "--checkpoint-every", a.every]

    def other(n):
        return shlex.split(a.restart_args) if n % 2 == 0 else []

    kills, restarts, finished = [], 0, False
    for k in range(a.kills):
        restart = os.path.exists(os.path.join(work, "ck.bin"))
        cmd = (again + args + other(restarts) + ck + ["--restart", "ck.bin"]
               if restart else first + args + ck)
        restarts += restart
        # After a new checkpoint, moments spread over the run: together
        # about half of it.
        delay = rng.uniform(0.0, 1.0) * whole / a.kills
        killed = kill_at(cmd, work, env, delay)
        kills.append({"kill": k + 1, "after_s": round(delay, 3),
                      "restart": restart, "killed": killed})
        print(f"kill {k + 1}: {'restarted, ' if restart else ''}"
              f"{'killed' if killed else 'finished first'} "
              f"{delay:.2f} s after a new checkpoint")
        if not killed:
            finished = True
            break
    if not finished:
        restart = os.path.exists(os.path.join(work, "ck.bin"))
        cmd = (again + args + other(restarts) + ck + ["--restart", "ck.bin"]
               if restart else first + args + ck)
        restarts += restart
        run_to_end(cmd, work, env)

    want, got = outputs(ref), outputs(work)
    bad = [f for f in want if f not in got or
           not filecmp.cmp(os.path.join(ref, f), os.path.join(work, f),
                           shallow=False)]
    extra = [f for f in got if f not in want]
    ok = not bad and not extra
    print(f"{len(want)} files, {len(want) - len(bad)} byte-identical after "
          f"{sum(k['killed'] for k in kills)} kills and {restarts} restarts"
          + (f"; differ or missing: {', '.join(bad)}" if bad else "")
          + (f"; left behind: {', '.join(extra)}" if extra else ""))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"files": want, "differ": bad, "extra": extra,
                       "kills": kills, "restarts": restarts,
                       "uninterrupted_seconds": whole, "ok": ok}, f,
                      indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
