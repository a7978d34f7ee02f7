#!/usr/bin/env python3
"""Registers, spills and occupancy of every model's CUDA kernels, no GPU
needed.

For each model: `easyml-compile --variant=cuda --emit=gpu-asm` for one
chip, then `ptxas -v` on the PTX; prints per kernel the registers per
thread, spill stores/loads and stack frame (bytes per thread), and the
theoretical occupancy at the runtime's block size (128 threads) from the
chip's register file (65,536 registers per SM, allocated per warp in units
of 256; at most 64 warps and 32 blocks per SM on sm_80 and sm_90), and
what the model's largest cvode group keeps live across its stage-2
right-hand side (LU non-zeros + 2 x states, f64 values: 2 registers each;
from the easyml.stiff_cost of --emit=prepared). Registers that ptxas
spills to shared memory (easyml-assemble-ptx's enable_smem_spilling, the
default with CUDA 12.8 and later) are the `smem` column, bytes per block
(sized for the kernel's launch bound of 256 threads), and count in the
occupancy; `spill st`/`spill ld` are what goes to local memory.
--no-smem-spilling compiles without it, for comparison; --compile-arg
passes any other easyml-compile option (an A/B: --compile-arg=
--cuda-machine-sink builds with LLVM's MachineSink on, as before
easyml-serialize-gpu-modules turned it off).

  scripts/gpu-resources.py --corpus ../shared/corpus [--models ohara-2011]
      [--chip sm_90] [--opt 3] [--json out.json] [--no-spill-up-to 20]

--no-spill-up-to N exits non-zero when a compute kernel of a model with at
most N states spills. --ceiling FILE (a --json output) exits non-zero when
a model's compute kernel spills more than FILE records for it (a ratchet:
spill-free models stay spill-free, the others do not get worse). --descriptor also builds the model's shared library
and checks that what `easyml-bench --imp-info` reports (read from the code
object by easyml-compile) agrees with ptxas: same registers and stack frame
of the compute kernel; it lists the block size chosen and its occupancy. Progress goes to stderr; a model whose ptxas runs
past --timeout seconds is listed as such.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGS_PER_SM, WARPS_PER_SM, BLOCKS_PER_SM, REG_UNIT = 65536, 64, 32, 256
# Shared memory per SM that blocks can use (sm_80: 164 KB, sm_90: 228 KB)
# and what each resident block reserves.
SMEM_PER_SM = {"sm_80": 164 * 1024, "sm_90": 228 * 1024}
SMEM_RESERVED = 1024


def occupancy(regs, block, smem=0, chip="sm_90"):
    warps_per_block = (block + 31) // 32
    regs_per_warp = (regs * 32 + REG_UNIT - 1) // REG_UNIT * REG_UNIT
    warps = REGS_PER_SM // max(1, regs_per_warp)
    blocks = min(warps // warps_per_block, BLOCKS_PER_SM,
                 WARPS_PER_SM // warps_per_block)
    if smem:
        blocks = min(blocks, SMEM_PER_SM.get(chip, 228 * 1024)
                     // (smem + SMEM_RESERVED))
    return blocks * warps_per_block / WARPS_PER_SM


def ptxas_path(args):
    for p in (args.cuda, os.environ.get("CUDA_PATH"),
              os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if p and os.path.exists(os.path.join(p, "bin", "ptxas")):
            return os.path.join(p, "bin", "ptxas")
    sys.exit("gpu-resources.py: error: no CUDA toolkit (bin/ptxas); give "
             "--cuda")


def parse(text):
    """ptxas -v output -> {kernel: {...}}"""
    kernels, current, entry, owner = {}, None, None, None
    for line in text.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = owner = m.group(1)
            current = kernels.setdefault(entry, {})
            continue
        # Properties of the functions the kernel calls (libdevice's slow
        # paths) follow its own: only the kernel's count.
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            owner = m.group(1)
            continue
        if current is None or owner != entry:
            continue
        m = re.search(r"(-?\d+) bytes stack frame, (-?\d+) bytes spill stores, "
                      r"(-?\d+) bytes spill loads", line)
        if m:
            current.update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                           spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
        m = re.search(r"(\d+) bytes smem", line)
        if m:
            current["smem"] = int(m.group(1))
    return kernels


def descriptor(args, source, tmp, name):
    """The compute kernel's figures in the model descriptor (imp-info)."""
    so = os.path.join(tmp, name + ".so")
    p = subprocess.run([os.path.join(args.build, "bin", "easyml-compile"),
                        source, "--variant=cuda", "--cuda-chips=" + args.chip,
                        "--emit=shared", "-o", so, "-w"]
                       + (["--cuda-smem-spilling=false"]
                          if args.no_smem_spilling else [])
                       + args.compile_arg,
                       capture_output=True, text=True)
    if p.returncode:
        return None
    info = subprocess.run([os.path.join(args.build, "bin", "easyml-bench"),
                           "--load-module", so, "--imp-info"],
                          capture_output=True, text=True).stdout
    for line in info.splitlines():
        f = line.split()
        if len(f) == 6 and f[0] == "cuda" and f[1] == args.chip:
            return {"registers": int(f[2]), "local_bytes": int(f[3]),
                    "block": int(f[4]), "occupancy": f[5]}
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--corpus")
    ap.add_argument("--models", nargs="+")
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("--block", type=int, default=128)
    ap.add_argument("--opt", type=int, default=3, help="ptxas -O level")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--cuda")
    ap.add_argument("--json")
    ap.add_argument("--no-spill-up-to", type=int, metavar="N")
    ap.add_argument("--ceiling", metavar="FILE")
    ap.add_argument("--descriptor", action="store_true")
    ap.add_argument("--no-smem-spilling", action="store_true",
                    help="compile with --cuda-smem-spilling=false")
    ap.add_argument("--compile-arg", action="append", default=[],
                    metavar="ARG",
                    help="one more easyml-compile argument for the kernels "
                    "(repeatable), e.g. --compile-arg=--cuda-machine-sink")
    args = ap.parse_args()
    ptxas = ptxas_path(args)
    if args.corpus:
        base = os.path.join(args.corpus, "models")
        models = args.models or sorted(os.listdir(base))
        sources = {m: os.path.join(base, m, "model.model") for m in models}
    else:
        base = os.path.join(ROOT, "examples", "models")
        models = args.models or sorted(f[:-6] for f in os.listdir(base)
                                       if f.endswith(".model"))
        sources = {m: os.path.join(base, m + ".model") for m in models}

    results, offenders, disagree, worse = {}, [], [], []
    ceiling = {}
    if args.ceiling:
        for m, r in json.load(open(args.ceiling))["models"].items():
            k = next((v for n, v in r.get("kernels", {}).items()
                      if n.endswith("_compute")), None)
            if k is not None:
                ceiling[m] = k.get("spill_stores", 0)
    print(f"{'model':<44} {'states':>6} {'regs':>5} {'spill st':>9} "
          f"{'spill ld':>9} {'stack':>6} {'occup.':>7} {'stiff live':>10}"
          f" {'smem':>6}"
          f"  (compute kernel, {args.chip}, {args.block} threads per block;"
          f" stiff live: f64 values the largest cvode group keeps live "
          f"across its stage-2 right-hand side; smem: registers spilled to "
          f"shared memory, bytes per block)")
    with tempfile.TemporaryDirectory(prefix="easyml-gpu-resources-") as tmp:
        for i, name in enumerate(models):
            print(f"[{i + 1}/{len(models)}] {name}", file=sys.stderr,
                  flush=True)
            ptx = os.path.join(tmp, name + ".ptx")
            cmd = [os.path.join(args.build, "bin", "easyml-compile"),
                   sources[name], "--variant=cuda", "--cuda-chips=" + args.chip,
                   "--emit=gpu-asm", "-o", ptx, "-w"]
            if args.no_smem_spilling:
                cmd.append("--cuda-smem-spilling=false")
            cmd += args.compile_arg
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode:
                results[name] = {"error": p.stderr.strip()[-300:]}
                print(f"{name:<44} compile failed")
                continue
            try:
                q = subprocess.run([ptxas, "-v", f"-O{args.opt}",
                                    "-arch=" + args.chip, ptx, "-o",
                                    os.path.join(tmp, "k.cubin")],
                                   capture_output=True, text=True,
                                   timeout=args.timeout)
            except subprocess.TimeoutExpired:
                results[name] = {"error": f"ptxas over {args.timeout:g} s"}
                print(f"{name:<44} ptxas over {args.timeout:g} s")
                continue
            if q.returncode:
                results[name] = {"error": q.stderr.strip()[-300:]}
                print(f"{name:<44} ptxas failed: {q.stderr.strip()[-200:]}")
                continue
            kernels = parse(q.stderr + q.stdout)
            for k in kernels.values():
                k["occupancy"] = occupancy(k.get("registers", 255), args.block,
                                           k.get("smem", 0), args.chip)
            info = subprocess.run(
                [os.path.join(args.build, "bin", "easyml-compile"),
                 sources[name], "--emit=mlir", "-w"],
                capture_output=True, text=True).stdout
            nstates = len(set(re.findall(r"easyml\.state\s+@(\w+)", info))) \
                or None
            # What the stiff groups keep live across their stage-2
            # right-hand side (easyml.stiff_cost of each cvode group).
            prepared = subprocess.run(
                [os.path.join(args.build, "bin", "easyml-compile"),
                 sources[name], "--emit=prepared", "--no-locations", "-w"],
                capture_output=True, text=True).stdout
            stiff = [dict((k, int(v)) for k, v in re.findall(
                r"(\w+) = (\d+) : i64", m))
                for m in re.findall(r"easyml\.stiff_cost = \{([^}]*)\}",
                                    prepared)]
            compute = next((v for k, v in kernels.items()
                            if k.endswith("_compute")), {})
            results[name] = {"states": nstates, "kernels": kernels,
                             "stiff_groups": stiff}
            live = max((g["live_across_stage2"] for g in stiff), default=0)
            print(f"{name:<44} {nstates if nstates else '?':>6} "
                  f"{compute.get('registers', '?'):>5} "
                  f"{compute.get('spill_stores', '?'):>9} "
                  f"{compute.get('spill_loads', '?'):>9} "
                  f"{compute.get('stack', '?'):>6} "
                  f"{100 * compute.get('occupancy', 0):6.1f}% "
                  f"{live:>10} {compute.get('smem', 0):>6}", flush=True)
            if args.descriptor:
                d = descriptor(args, sources[name], tmp, name)
                results[name]["descriptor"] = d
                if not d or d["registers"] != compute.get("registers") or \
                        d["local_bytes"] != compute.get("stack"):
                    disagree.append(name)
                    print(f"{name:<44} descriptor {d} != ptxas {compute}")
                else:
                    print(f"{name:<44} descriptor agrees: block "
                          f"{d['block']}, occupancy {d['occupancy']}")
            if name in ceiling and \
                    compute.get("spill_stores", 0) > ceiling[name]:
                worse.append(f"{name} ({compute.get('spill_stores')} B > "
                             f"{ceiling[name]} B)")
            if (args.no_spill_up_to is not None and nstates is not None and
                    nstates <= args.no_spill_up_to and
                    compute.get("spill_stores", 0) > 0):
                offenders.append(name)
    if args.json:
        json.dump({"chip": args.chip, "block": args.block, "opt": args.opt,
                   "models": results}, open(args.json, "w"), indent=1)
    ok = [r for r in results.values() if "kernels" in r]
    spilling = [n for n, r in results.items() if "kernels" in r and any(
        k.get("spill_stores", 0) for k in r["kernels"].values())]
    smem = [n for n, r in results.items() if "kernels" in r and any(
        k.get("smem", 0) for k in r["kernels"].values())]
    print(f"{len(ok)} of {len(results)} models assembled; "
          f"{len(spilling)} with spills"
          + (f" ({len(smem)} also spill to shared memory)" if smem else ""))
    if args.descriptor:
        print(f"descriptor: {len(ok) - len(disagree)} of {len(ok)} agree "
              "with ptxas")
    if offenders:
        print(f"spills with <= {args.no_spill_up_to} states: "
              + ", ".join(offenders))
    if args.ceiling:
        print(f"ceiling {os.path.basename(args.ceiling)}: "
              + ("spills above it: " + ", ".join(worse) if worse else
                 f"no model spills more ({len(ceiling)} recorded)"))
    return 1 if offenders or disagree or worse else 0


if __name__ == "__main__":
    sys.exit(main())
