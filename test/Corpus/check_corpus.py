#!/usr/bin/env python3
"""Checks every corpus model against the facts in its meta.json.

For each ../shared/corpus/models/<name>/model.model: the front end accepts it,
emits verified easyml IR, and its states (names and kinds), parameter count
and Markov group count agree with meta.json. Every openCARP-dialect file under
corpus/opencarp must be accepted and produce verified IR too.

Usage: check_corpus.py --compiler easyml-compile --corpus DIR [--json OUT]
Prints one line per model and a final 'N passed, M failed' line; exits 1 on
any failure.
"""
import argparse
import json
import os
import subprocess
import sys

KIND = {"diff": "diff", "inf_tau": "inf_tau", "alpha_beta": "alpha_beta"}


def run(compiler, path, emit):
    p = subprocess.run([compiler, path, "--emit=" + emit, "-w"],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check_model(compiler, folder):
    problems = []
    model = os.path.join(folder, "model.model")
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    rc, out, err = run(compiler, model, "summary-json")
    if rc != 0:
        return ["front end rejected the model:\n" + err.strip()]
    summary = json.loads(out)
    states = {s["name"]: s for s in summary["states"]}
    vm = meta.get("vm_name_in_easyml")
    expected = {k: v for k, v in meta["state_kinds"].items() if k != vm}
    if len(states) != meta["n_states_easyml_excluding_Vm"]:
        problems.append("states: %d, meta.json says %d"
                        % (len(states), meta["n_states_easyml_excluding_Vm"]))
    missing = sorted(set(expected) - set(states))
    extra = sorted(set(states) - set(expected))
    if missing:
        problems.append("states missing: " + ", ".join(missing))
    if extra:
        problems.append("unexpected states: " + ", ".join(extra))
    for name, kind in expected.items():
        if name in states and states[name]["kind"] != KIND.get(kind, kind):
            problems.append("state %s: kind %s, meta.json says %s"
                            % (name, states[name]["kind"], kind))
    if summary["counts"]["parameters"] != meta["n_params_easyml"]:
        problems.append("parameters: %d, meta.json says %d"
                        % (summary["counts"]["parameters"],
                           meta["n_params_easyml"]))
    if summary["counts"]["markov_groups"] != meta["n_markov_groups"]:
        problems.append("markov_be groups: %d, meta.json says %d"
                        % (summary["counts"]["markov_groups"],
                           meta["n_markov_groups"]))
    for s in summary["states"]:
        if s["init"] is None:
            problems.append("state %s has no numeric initial value" % s["name"])
    rc, out, err = run(compiler, model, "mlir")
    if rc != 0 or "easyml.model" not in out:
        problems.append("no verified easyml IR:\n" + err.strip())
    return problems


def check_opencarp(compiler, path):
    rc, out, err = run(compiler, path, "mlir")
    if rc != 0 or "easyml.model" not in out:
        return ["no verified easyml IR:\n" + err.strip()]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compiler", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--json", help="write per-model results here")
    args = ap.parse_args()

    results = {}
    models_dir = os.path.join(args.corpus, "models")
    for name in sorted(os.listdir(models_dir)):
        folder = os.path.join(models_dir, name)
        if os.path.isfile(os.path.join(folder, "model.model")):
            results["models/" + name] = check_model(args.compiler, folder)
    oc_dir = os.path.join(args.corpus, "opencarp")
    if os.path.isdir(oc_dir):
        for name in sorted(os.listdir(oc_dir)):
            if name.endswith(".model"):
                results["opencarp/" + name] = check_opencarp(
                    args.compiler, os.path.join(oc_dir, name))

    failed = 0
    for name, problems in results.items():
        if problems:
            failed += 1
            print("FAIL %s" % name)
            for p in problems:
                print("     " + p.replace("\n", "\n     "))
        else:
            print("PASS %s" % name)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
