#!/usr/bin/env python3
"""Two genuinely different CPU devices sharing one simulation.

On a 2-core machine the runtime can run one model as two CPU devices side
by side: `baseline` (openCARP's scalar code) on one core and `cpu-simd` on
the other, typically 5-8x apart. For each model this benchmark runs

  baseline alone      --devices cpu:baseline@1
  cpu-simd alone      --devices cpu:cpu-simd@1
  both                --devices cpu:baseline@1+cpu:cpu-simd@1

with the same protocol, and reports the hybrid throughput as a share of the
sum of the two standalone throughputs (the efficiency), the wave at which
the per-wave imbalance first fell below the threshold (convergence), and
the share of the compute time after it spent in waves above the threshold,
and the balance: the hybrid throughput as a share of the sum of the two
devices' own rates inside the hybrid run (what the split loses, apart from
the machine running the devices faster or slower than when each ran
alone).
It also checks that the hybrid trace (cell 0, on the baseline pool) is the
baseline one digit for digit and equals the cpu-simd one within the corpus
equivalence bar. The last line states the lowest efficiency.

  benchmarks/hybrid.py --build build --corpus ../shared/corpus \\
      [--models tentusscher-2006 ohara-2011] [--json hybrid.json]

Waves are cut every --wave-steps steps (default 500) as a tissue solver's
output or state-save events would, so the balancer is judged over many
waves. The two pools share every wave (each computing chunks from its end
of the cells until they meet); --no-sharing has the balancer split the
waves in advance instead. By default the cells rest (constant cost per cell: the split can
settle); --paced stimulates them, and the cost of a cell then follows the
action potential differently on the two devices (the scalar code branches,
the vector code does not), so the balancer keeps following it. A
benchmark, not a test: compare ratios from one run, and on a shared
machine give --repeat 3 (each device set run three times in turn, the
median of each taken), --rounds 3 (each run three rounds of the three
sets back to back, each round's efficiency from rates taken seconds
apart, the round of median efficiency taken: a drift over minutes then
moves the three rates of a round together) or --runs 3 (three
independent measurements of the efficiency from one compilation, the
median reported with all three).
--min-states 15 takes every corpus model with at least 15 states.
--together also runs the two pools alone at the same time, as two
processes on a CPU each: where that sums to less than the two alone, the
machine itself does not give two busy cores their full speed at once, and
the hybrid is judged against that too (efficiency_vs_together).
--control measures the machine instead (an A/A check), each run's
"efficiency" a ratio that is 100% by construction but for the machine:
--control one times cpu-simd alone twice, back to back, the second rate
over the first (a process against itself a moment later, unbound as
the hybrid's standalone runs are); --control both
times it alone on each of two CPUs in turn, then on both at once as two
processes, the summed rates at once over the summed rates in turn (two
busy cores against each alone, as the hybrid is judged). Given the same
--runs, its medians and lowest runs say how far this machine lets a
criterion on the efficiency be judged at all. Nothing hybrid runs.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Corpus models with at least 15 states, one per family.
DEFAULT_MODELS = ["tentusscher-2006", "courtemanche-1998", "grandi-2010",
                  "ohara-2011", "shannon-2004"]
DEVICE_SETS = [("baseline", "cpu:baseline@1"), ("cpu-simd", "cpu:cpu-simd@1"),
               ("hybrid", "cpu:baseline@1+cpu:cpu-simd@1")]


def source(args, name):
    if args.corpus:
        return os.path.join(args.corpus, "models", name, "model.model")
    return os.path.join(ROOT, "examples", "models", name + ".model")


def read_trace(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                rows.append([float(x) for x in parts])
    return rows


def bench_command(args, lib, devices, tmp, tag):
    report = os.path.join(tmp, tag + ".json")
    return [os.path.join(args.build, "bin", "easyml-bench"), "--load-module",
            lib, "--devices", devices, "--num", str(args.cells), "--duration",
            str(args.duration), "--dt", "0.01", "--dt-out", "1",
            "--stim-start", "1", "--bcl", str(args.bcl), "--numstim",
            "1000" if args.paced else "0",
            "--max-wave-steps", str(args.wave_steps),
            "--lb-threshold", str(args.threshold), "--no-trace", "-q",
            *(["--lb-periodic"] if args.periodic else []),
            *(["--no-lb-sharing"] if args.no_sharing else []),
            "--read-ini-file", os.path.join(tmp, "settled.sv"),
            "--fout=" + os.path.join(tmp, tag), "--report-json", report]


def pinned(cpus):
    """A preexec_fn binding the child to `cpus` (None: unbound)."""
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def run(args, lib, devices, tmp, tag, cpus=None):
    report = os.path.join(tmp, tag + ".json")
    cmd = bench_command(args, lib, devices, tmp, tag)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp,
                       preexec_fn=pinned(cpus))
    if p.returncode:
        sys.exit(f"hybrid.py: {tag}: {' '.join(cmd)}\n{p.stderr}")
    r = json.load(open(report))
    return r, read_trace(os.path.join(tmp, tag + ".txt"))


def run_together(args, lib, tmp):
    """The two pools alone, at once, as two processes (each on a CPU of its
    own where there are two): what the machine gives two busy cores at
    the same time. Their rates, by device set."""
    cpus = sorted(os.sched_getaffinity(0))
    procs = []
    for k, (tag, devices) in enumerate(DEVICE_SETS[:2]):
        cmd = bench_command(args, lib, devices, tmp, tag + "-together")
        pin = {cpus[k]} if len(cpus) >= 2 else None
        procs.append((tag, cmd, subprocess.Popen(
            cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, preexec_fn=pinned(pin))))
    rates = {}
    for tag, cmd, p in procs:
        _, err = p.communicate()
        if p.returncode:
            sys.exit(f"hybrid.py: {tag} together: {' '.join(cmd)}\n{err}")
        r = json.load(open(os.path.join(tmp, tag + "-together.json")))
        rates[tag] = r["cell_steps_per_second"]
    return rates


def convergence(rt, threshold):
    """(first converged wave, 1-based; share of later time above threshold)"""
    waves = rt["wave_log"]
    first = None
    for k, w in enumerate(waves):
        if w["imbalance"] < threshold:
            first = k
            break
    if first is None:
        return None, 1.0
    total = above = 0.0
    for w in waves[first:]:
        total += w["wall"]
        if w["imbalance"] >= threshold:
            above += w["wall"]
    return first + 1, above / total if total else 0.0


def measure(args, name, lib, tmp):
    """One run: the three device sets each --repeat times in turn, the
    median of each taken; or, with --rounds, that many rounds of the three
    back to back, the round of median efficiency taken."""
    if args.rounds > 1:
        return measure_rounds(args, lib, tmp)
    tries = {tag: [] for tag, _ in DEVICE_SETS}
    together = []
    for _ in range(args.repeat):
        for tag, devices in DEVICE_SETS:
            tries[tag].append(run(args, lib, devices, tmp, tag))
        if args.together:
            together.append(run_together(args, lib, tmp))
    runs, traces = {}, {}
    for tag in tries:
        ordered = sorted(tries[tag],
                         key=lambda x: x[0]["cell_steps_per_second"])
        runs[tag], traces[tag] = ordered[len(ordered) // 2]
    entry = judge(args, runs, traces)
    if together:
        # The try of median summed rate.
        sums = sorted(together, key=lambda t: sum(t.values()))
        both = sums[(len(sums) - 1) // 2]
        rate = entry["rates"]
        entry.update({"together_rates": both,
                      "together_vs_alone": sum(both.values()) /
                      (rate["baseline"] + rate["cpu-simd"]),
                      "efficiency_vs_together": rate["hybrid"] /
                      sum(both.values())})
    return entry


def measure_rounds(args, lib, tmp):
    """--rounds rounds of the three device sets back to back, each round
    starting one set later than the last (so that none is always measured
    first or last): each round's efficiency divides rates taken seconds
    apart, and the round of median efficiency is the run's. A drift of
    the machine over minutes moves the three rates of a round together,
    and a round hit by a burst of other work is outvoted."""
    rounds = []
    for k in range(args.rounds):
        order = DEVICE_SETS[k % 3:] + DEVICE_SETS[:k % 3]
        tries = {tag: run(args, lib, devices, tmp, tag)
                 for tag, devices in order}
        rounds.append(judge(args, {t: tries[t][0] for t in tries},
                            {t: tries[t][1] for t in tries}))
    ordered = sorted(rounds, key=lambda r: r["efficiency"])
    entry = dict(ordered[(len(ordered) - 1) // 2])
    entry["round_efficiencies"] = [r["efficiency"] for r in rounds]
    # Every round's traces, not only the median one's.
    entry["same_trace_as_baseline"] = all(r["same_trace_as_baseline"]
                                          for r in rounds)
    entry["max_dvm_vs_cpu_simd"] = max(r["max_dvm_vs_cpu_simd"]
                                       for r in rounds)
    return entry


def measure_control(args, lib, tmp):
    """One run of --control: "first" and "second" rates whose ratio is
    100% but for the machine (see the module's help)."""
    devices = DEVICE_SETS[1][1]
    if args.control == "one":
        first, _ = run(args, lib, devices, tmp, "control-first")
        second, _ = run(args, lib, devices, tmp, "control-second")
        rate = {"first": first["cell_steps_per_second"],
                "second": second["cell_steps_per_second"]}
    else:
        cpus = sorted(os.sched_getaffinity(0))[:2]
        alone = [run(args, lib, devices, tmp, f"control-cpu{c}", {c})[0]
                 for c in cpus]
        procs = []
        for c in cpus:
            cmd = bench_command(args, lib, devices, tmp, f"control-both{c}")
            procs.append((cmd, subprocess.Popen(
                cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, preexec_fn=pinned({c}))))
        for cmd, p in procs:
            _, err = p.communicate()
            if p.returncode:
                sys.exit(f"hybrid.py: control: {' '.join(cmd)}\n{err}")
        both = [json.load(open(os.path.join(tmp, f"control-both{c}.json")))
                for c in cpus]
        first = alone[0]
        rate = {"first": sum(r["cell_steps_per_second"] for r in alone),
                "second": sum(r["cell_steps_per_second"] for r in both),
                "cpus": cpus,
                "alone": [r["cell_steps_per_second"] for r in alone],
                "at_once": [r["cell_steps_per_second"] for r in both]}
    return {"rates": rate, "efficiency": rate["second"] / rate["first"],
            "num_states": first.get("num_states", "?")}


def summarise_control(runs):
    """The results entry of a model under --control: the run of median
    ratio, with every run's."""
    ordered = sorted(runs, key=lambda r: r["efficiency"])
    entry = dict(ordered[(len(ordered) - 1) // 2])
    entry["runs"] = [{"efficiency": r["efficiency"], "rates": r["rates"]}
                     for r in runs]
    entry["lowest_efficiency"] = ordered[0]["efficiency"]
    return entry


def print_control_row(name, r):
    line = (f"{name:<22} {r['num_states']!s:>6} "
            f"{r['rates']['first']:10.3g} {r['rates']['second']:10.3g} "
            f"{100 * r['efficiency']:6.1f}%")
    if len(r["runs"]) > 1:
        line += "  runs " + ", ".join(f"{100 * x['efficiency']:.1f}%"
                                      for x in r["runs"])
    print(line, flush=True)


def judge(args, runs, traces):
    """The results entry of one report and trace per device set."""
    rate = {t: runs[t]["cell_steps_per_second"] for t in runs}
    eff = rate["hybrid"] / (rate["baseline"] + rate["cpu-simd"])
    rt = runs["hybrid"]["runtime"]
    inside = sum(d["cell_steps_per_second"] for d in rt["devices"])
    # Each pool's rate inside the hybrid over its rate alone: what the
    # machine gave the pools when both ran at once.
    alone = {d: rate[tag] for tag, d in DEVICE_SETS[:2]}
    inside_vs_alone = {d["id"]: d["cell_steps_per_second"] / alone[d["id"]]
                       for d in rt["devices"] if alone.get(d["id"])}
    conv, above = convergence(rt, args.threshold)
    return {"rates": rate, "efficiency": eff,
            "balance": rate["hybrid"] / inside if inside else 0.0,
            "inside_vs_alone": inside_vs_alone,
            "shared_waves": rt["shared_waves"],
            "pair_cpus": rt.get("pair_cpus", []),
            "converged_wave": conv,
            "time_above_threshold": above,
            "max_dvm_vs_cpu_simd": max(
                abs(a[1] - b[1]) for a, b in
                zip(traces["hybrid"], traces["cpu-simd"])),
            # Cell 0 is the baseline pool's in the hybrid: its trace is
            # baseline's alone, digit for digit.
            "same_trace_as_baseline": traces["hybrid"] == traces["baseline"],
            "num_states": runs["hybrid"].get("num_states", "?"),
            "shares": {d["id"]: d["cells"] / args.cells
                       for d in rt["devices"]},
            "repartitions": rt["repartitions"]}


def prepare(args, name, tmp):
    """Compile the model and settle it at rest; None and a message when
    either fails."""
    lib = os.path.join(tmp, name + ".so")
    cmd = [os.path.join(args.build, "bin", "easyml-compile"),
           source(args, name), "--emit=shared", "-o", lib, "-w",
           "--variant=baseline,cpu-simd"]
    if args.corpus:
        cmd += ["--model-name", name]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip()
    # Start every run from the state after --settle ms at rest, as a
    # simulation after its initialisation (the first steps from the
    # model's initial values cost differently on each device).
    pre = [os.path.join(args.build, "bin", "easyml-bench"),
           "--load-module", lib, "--devices", "cpu:cpu-simd",
           "--num", "1", "--duration", str(args.settle + 0.1),
           "--dt", "0.01", "--numstim", "0", "--no-trace", "-q",
           "--fout=" + os.path.join(tmp, "settle"),
           "--save-ini-time", str(args.settle),
           "--save-ini-file", os.path.join(tmp, "settled.sv")]
    p = subprocess.run(pre, capture_output=True, text=True, cwd=tmp)
    if p.returncode:
        return None, "settling: " + p.stderr.strip()
    return lib, None


def corpus_models(args):
    """Every corpus model with at least --min-states states (Vm included),
    by the corpus's metadata."""
    root = os.path.join(args.corpus, "models")
    names = []
    for name in sorted(os.listdir(root)):
        try:
            meta = json.load(open(os.path.join(root, name, "meta.json")))
        except (OSError, ValueError):
            continue
        if meta.get("n_states_easyml_including_Vm", 0) >= args.min_states:
            names.append(name)
    return names


def summarise(name, runs):
    """The results entry of a model over its runs: the run of median
    efficiency, with every run's efficiency and balance."""
    ordered = sorted(runs, key=lambda r: r["efficiency"])
    entry = dict(ordered[(len(ordered) - 1) // 2])
    entry["runs"] = [{"efficiency": r["efficiency"], "balance": r["balance"],
                      "rates": r["rates"],
                      "inside_vs_alone": r["inside_vs_alone"],
                      **{k: r[k] for k in ("together_rates",
                                           "together_vs_alone",
                                           "efficiency_vs_together",
                                           "round_efficiencies")
                         if k in r}} for r in runs]
    entry["lowest_efficiency"] = ordered[0]["efficiency"]
    entry["max_dvm_vs_cpu_simd"] = max(r["max_dvm_vs_cpu_simd"] for r in runs)
    entry["same_trace_as_baseline"] = all(r["same_trace_as_baseline"]
                                          for r in runs)
    return entry


def print_row(name, r):
    conv = r["converged_wave"]
    line = (f"{name:<22} {r['num_states']!s:>6} "
            f"{r['rates']['baseline']:10.3g} {r['rates']['cpu-simd']:10.3g} "
            f"{r['rates']['hybrid']:10.3g} {100 * r['efficiency']:6.1f}% "
            f"{100 * r['balance']:5.1f}% {conv if conv else '-':>6} "
            f"{100 * r['time_above_threshold']:5.1f}% "
            f"{r['max_dvm_vs_cpu_simd']:8.1e}")
    ratios = r.get("inside_vs_alone", {})
    if ratios:
        line += "  inside/alone " + "/".join(
            f"{100 * ratios[d]:.0f}%" for _, d in DEVICE_SETS[:2]
            if d in ratios)
    if "together_vs_alone" in r:
        line += "  together/alone " + ", ".join(
            f"{100 * x['together_vs_alone']:.0f}%" for x in r["runs"])
    if len(r["runs"]) > 1:
        line += "  runs " + ", ".join(f"{100 * x['efficiency']:.1f}%"
                                      for x in r["runs"])
    print(line, flush=True)


def write_json(args, results, failed):
    if args.json:
        json.dump({"cells": args.cells, "paced": args.paced,
                   "sharing": not args.no_sharing,
                   "repeat": args.repeat, "rounds": args.rounds,
                   "runs": args.runs,
                   "together": args.together, "control": args.control,
                   "duration_ms": args.duration,
                   "wave_steps": args.wave_steps,
                   "threshold": args.threshold, "results": results,
                   "failed": failed},
                  open(args.json, "w"), indent=1)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus")
    ap.add_argument("--models", nargs="+")
    ap.add_argument("--min-states", type=int,
                    help="with --corpus and no --models: every corpus model "
                         "with at least this many states, Vm included")
    ap.add_argument("--cells", type=int, default=4096)
    ap.add_argument("--duration", type=float, default=100)
    ap.add_argument("--periodic", action="store_true",
                    help="with --paced: --lb-periodic (splits learned per "
                         "phase of the cycle; give several cycles)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each device set this many times, in turn, "
                         "and take each one's median run")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each run as this many rounds of the "
                         "three device sets back to back and take the "
                         "round of median efficiency (the rates it divides "
                         "taken seconds apart, not minutes)")
    ap.add_argument("--runs", type=int, default=1,
                    help="measure the efficiency this many times per model "
                         "(compiled once) and report the median run, with "
                         "every run's efficiency")
    ap.add_argument("--together", action="store_true",
                    help="also run the two pools alone at the same time, "
                         "as two processes on a CPU each: what the machine "
                         "gives two busy cores at once (together_vs_alone), "
                         "and the hybrid against that (efficiency_vs_"
                         "together)")
    ap.add_argument("--control", nargs="?", const="one",
                    choices=["one", "both"],
                    help="an A/A check of the machine instead, nothing "
                         "hybrid run: 'one' (the default) times cpu-simd "
                         "alone twice, back to back, the second rate over "
                         "the first; 'both' on each of two CPUs in turn "
                         "and then on both at once, the summed rates at "
                         "once over those in turn")
    ap.add_argument("--no-sharing", action="store_true",
                    help="the balancer splits every wave in advance "
                         "(--no-lb-sharing) instead of the two pools "
                         "sharing it")
    ap.add_argument("--paced", action="store_true",
                    help="pace the cells (stimulus every --bcl ms from 1 ms): "
                         "the cost per cell then changes over the action "
                         "potential, differently on each device")
    ap.add_argument("--bcl", type=float, default=1000)
    ap.add_argument("--settle", type=float, default=50,
                    help="ms at rest before the measured runs start")
    ap.add_argument("--wave-steps", type=int, default=500)
    ap.add_argument("--threshold", type=float, default=0.10)
    ap.add_argument("--trace-bar", type=float, default=1e-6,
                    help="largest |Vm(hybrid) - Vm(cpu-simd)| in mV")
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.runs < 1 or args.repeat < 1 or args.rounds < 1:
        ap.error("--runs, --repeat and --rounds take a positive count")
    if args.rounds > 1 and (args.repeat > 1 or args.together):
        ap.error("--rounds takes neither --repeat nor --together")
    if args.control and (args.rounds > 1 or args.repeat > 1 or
                         args.together):
        ap.error("--control takes none of --rounds, --repeat, --together")
    if args.control == "both" and len(os.sched_getaffinity(0)) < 2:
        ap.error("--control both takes two CPUs")
    if args.min_states is not None and (args.models or not args.corpus):
        ap.error("--min-states takes --corpus and no --models")
    if not args.models:
        if not args.corpus:
            ap.error("give --corpus (default models come from the "
                     "reference corpus) or --models")
        args.models = (corpus_models(args) if args.min_states is not None
                       else DEFAULT_MODELS)
    args.build = os.path.abspath(args.build)
    return args


def print_header(args):
    if args.control:
        a, b = (("first", "second") if args.control == "one" else
                ("in turn", "at once"))
        print(f"{'model':<22} {'states':>6} {a:>10} {b:>10} {'ratio':>7}")
        print(f"{'':<22} {'':>6} {'cell-steps/s':>21}")
        return
    print(f"{'model':<22} {'states':>6} {'baseline':>10} {'cpu-simd':>10} "
          f"{'hybrid':>10} {'effic.':>7} {'bal.':>6} {'conv.':>6} "
          f"{'above':>6} {'|dVm|':>8}")
    print(f"{'':<22} {'':>6} {'cell-steps/s':>32} {'':>10} {'':>7} "
          f"{'':>6} {'wave':>6} {'thr.':>6} {'mV':>8}")


def print_counts(args, results):
    """The acceptance's counts: medians at or above 95%, runs below 90%."""
    meds = [r["efficiency"] for r in results.values()]
    every = [x["efficiency"] for r in results.values() for x in r["runs"]]
    meds.sort()
    what = "ratio" if args.control else "efficiency"
    print(f"{what}: median at least 95% on {sum(m >= 0.95 for m in meds)} "
          f"of {len(meds)} models (median of medians "
          f"{100 * meds[(len(meds) - 1) // 2]:.1f}%); "
          f"{sum(x < 0.90 for x in every)} of {len(every)} runs below 90%")


def main_control(args, results, failed):
    """--control: the table, the counts and the lowest ratio."""
    if not results:
        sys.exit("hybrid.py: no model ran")
    print_counts(args, results)
    low = min(results, key=lambda n: results[n]["lowest_efficiency"])
    print(f"lowest single run {100 * results[low]['lowest_efficiency']:.1f}% "
          f"({low})" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def main():
    args = parse_args()
    results, failed = {}, {}
    print_header(args)
    with tempfile.TemporaryDirectory(prefix="easyml-hybrid-") as tmp:
        for i, name in enumerate(args.models):
            print(f"[{i + 1}/{len(args.models)}] {name} ...", end="\r",
                  file=sys.stderr, flush=True)
            lib, why = prepare(args, name, tmp)
            if lib is None:
                print(f"{name:<22} failed: {why.splitlines()[0]}",
                      flush=True)
                failed[name] = why
                continue
            if args.control:
                runs = [measure_control(args, lib, tmp)
                        for _ in range(args.runs)]
                results[name] = summarise_control(runs)
                print_control_row(name, results[name])
            else:
                runs = [measure(args, name, lib, tmp)
                        for _ in range(args.runs)]
                results[name] = summarise(name, runs)
                print_row(name, results[name])
            write_json(args, results, failed)
    write_json(args, results, failed)
    if args.control:
        return main_control(args, results, failed)
    if not results:
        sys.exit("hybrid.py: no model ran")
    worst = min(results, key=lambda n: results[n]["efficiency"])
    bad = [n for n in results if results[n]["converged_wave"] is None or
           results[n]["converged_wave"] > 5 or
           results[n]["max_dvm_vs_cpu_simd"] > args.trace_bar or
           not results[n]["same_trace_as_baseline"]]
    if bad:
        print("not converged within 5 waves or trace off: " + ", ".join(bad))
    if failed:
        print("failed: " + ", ".join(failed))
    print_counts(args, results)
    low = min(results, key=lambda n: results[n]["lowest_efficiency"])
    print(f"lowest efficiency: {100 * results[worst]['efficiency']:.1f}% "
          f"({worst})" + (f"; lowest single run "
                          f"{100 * results[low]['lowest_efficiency']:.1f}% "
                          f"({low})" if args.runs > 1 else ""))
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
