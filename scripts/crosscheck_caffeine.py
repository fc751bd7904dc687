"""Compares `imagecache-bench simulate --policy w-tinylfu` with Caffeine on oracleGeneral traces.

Usage: crosscheck_caffeine.py BENCH CAFFEINE_JAR DIRECTORY [--json FILE]
(run through scripts/crosscheck-caffeine, which installs Caffeine and exports the datasets).
"""
import concurrent.futures
import json
import os
import random
import statistics
import struct
import subprocess
import sys
import time

TOLERANCE = 0.01
SHARES = (0.01, 0.10, 0.30)
RUNS = 10
# Where Caffeine's own runs spread wide (small caches, where the sketch's hash decides many duels),
# the band widens to this many standard deviations of them: ours is one more draw of that hash.
SPREADS = 4
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "caffeine", "CaffeineReplay.java")


def write_zipf(path, objects=20_000, requests=200_000, alpha=0.8, seed=16):
    """A synthetic Zipf trace (object ids only matter in object mode), deterministic."""
    generator = random.Random(seed)
    weights = [1 / rank ** alpha for rank in range(1, objects + 1)]
    ids = generator.choices(range(objects), weights=weights, k=requests)
    with open(path, "wb") as file:
        for index, object_id in enumerate(ids):
            file.write(struct.pack("<IQIq", index, object_id, 1, -1))


def object_count(path):
    with open(path, "rb") as file:
        data = file.read()
    return len({struct.unpack_from("<Q", data, offset + 4)[0] for offset in range(0, len(data), 24)})


def ours(bench, path, capacities):
    command = [bench, "simulate", path, "--libcachesim", "--objects", "--policy", "w-tinylfu",
               "--memory", ",".join(f"{capacity}B" for capacity in capacities), "--json", "--no-files"]
    rows = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)["simulations"]
    return {row["memoryBytes"]: 1 - row["result"]["hits"] / row["result"]["requests"] for row in rows}


def caffeine(jar, path, capacities):
    command = ["java", "-cp", jar, DRIVER, path, str(RUNS), *map(str, capacities)]
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()
    return {row["capacity"]: row["missRatios"] for row in map(json.loads, lines)}


def compare(bench, jar, path):
    objects = object_count(path)
    capacities = sorted({max(int(objects * share), 1) for share in SHARES})
    simulated, reference = ours(bench, path, capacities), caffeine(jar, path, capacities)
    cells = []
    for share, capacity in zip(SHARES, capacities):
        runs = reference[capacity]
        mean = statistics.fmean(runs)
        band = max(TOLERANCE, SPREADS * statistics.stdev(runs))
        cells.append({"trace": os.path.basename(path).removesuffix(".oracleGeneral"), "share": share,
                      "objects": capacity, "ours": simulated[capacity], "caffeine": mean,
                      "caffeineRuns": runs, "difference": simulated[capacity] - mean, "band": band,
                      "agrees": abs(simulated[capacity] - mean) <= band})
    return cells


def main():
    bench, jar, directory = sys.argv[1:4]
    json_path = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    write_zipf(os.path.join(directory, "zipf-0.8.oracleGeneral"))
    started = time.monotonic()
    paths = [os.path.join(directory, file) for file in sorted(os.listdir(directory))]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        cells = [cell for trace_cells in pool.map(lambda path: compare(bench, jar, path), paths) for cell in trace_cells]
    print(f"{'trace':<16} {'size':>4} {'objects':>7} {'ours':>8} {'Caffeine':>8} {'its runs':>17} {'diff':>8} {'band':>7}  verdict")
    for cell in cells:
        spread = f"{min(cell['caffeineRuns']):.4f}–{max(cell['caffeineRuns']):.4f}"
        print(f"{cell['trace']:<16} {cell['share']:>4.0%} {cell['objects']:>7} {cell['ours']:>8.4f} {cell['caffeine']:>8.4f} "
              f"{spread:>17} {cell['difference']:>+8.4f} {cell['band']:>7.4f}  {'ok' if cell['agrees'] else 'DIFFERS'}")
    failures = sum(not cell["agrees"] for cell in cells)
    print(f"\n{len(cells) - failures}/{len(cells)} cells agree: within {TOLERANCE} of Caffeine's mean miss ratio over {RUNS} runs, "
          f"or {SPREADS} standard deviations of those runs where that is wider; "
          f"{time.monotonic() - started:.0f} s")
    if json_path:
        with open(json_path, "w") as file:
            json.dump({"tolerance": TOLERANCE, "runs": RUNS, "spreads": SPREADS, "cells": cells}, file, indent=2)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
