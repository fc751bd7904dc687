"""Compares `imagecache-bench simulate` with libCacheSim on oracleGeneral traces.

Usage: crosscheck_libcachesim.py BENCH DIRECTORY [--json FILE]
(run through scripts/crosscheck-libcachesim, which exports the datasets).
"""
import concurrent.futures
import json
import os
import struct
import subprocess
import sys
import time

import libcachesim as lcs
import numpy

TOLERANCE = 0.002
SHARES = (0.01, 0.10)
# Ours → libCacheSim. Gated: must agree within TOLERANCE.
GATED = {
    "lru": lambda size: lcs.LRU(size),
    "fifo": lambda size: lcs.FIFO(size),
    "clock": lambda size: lcs.Clock(size),
    "sieve": lambda size: lcs.Sieve(size),
    "arc": lambda size: lcs.ARC(size),
    "2q": lambda size: lcs.TwoQ(size),
    "lirs": lambda size: lcs.LIRS(size),
    # libCacheSim's S3FIFO.c since December 2024 (the wheel's); its default threshold is 2.
    "s3fifo": lambda size: lcs.S3FIFO(size, move_to_main_threshold=1),
    "s3fifo-2": lambda size: lcs.S3FIFO(size, move_to_main_threshold=2),
    # WTinyLFU.c with its defaults (1% window, SLRU 1:4 main, counting Bloom filter).
    "w-tinylfu-libcachesim": lambda size: lcs.WTinyLFU(size),
    # GDSF(1): every miss costs the same, priority frequency / size; the newcomer enters before
    # evictions (the wheel's order), so it can be the one that leaves.
    "gdsf-1": lambda size: lcs.GDSF(size),
}
# Reported, not gated: different designs, named in the table.
REPORTED = {
    "w-tinylfu": (lambda size: lcs.WTinyLFU(size),
                  "Caffeine's W-TinyLFU (scripts/crosscheck-caffeine checks it); libCacheSim's is w-tinylfu-libcachesim"),
    "gdsf": (lambda size: lcs.GDSF(size), "ours weighs a miss by its download bytes (gdsf-1 is libCacheSim's)"),
}
# Belady: ours is MIN with bypass (an object used later than every resident one is not
# cached), libCacheSim's always caches the newcomer. With equal sizes MIN is optimal, so in
# object mode ours must miss no more than theirs (gated); with sizes neither is a bound (reported).
BELADY = "belady"


def write_zipf(path, objects=20_000, requests=200_000, alpha=0.8, seed=16):
    """A synthetic Zipf trace with sizes from 1 KB to 1 MB, deterministic."""
    generator = numpy.random.default_rng(seed)
    weights = 1 / numpy.arange(1, objects + 1) ** alpha
    ids = generator.choice(objects, size=requests, p=weights / weights.sum())
    sizes = generator.integers(1_000, 1_000_000, size=objects)
    # The index of each request's next request for its object (-1: none), which Belady reads.
    following, seen = [-1] * requests, {}
    for index in range(requests - 1, -1, -1):
        following[index] = seen.get(int(ids[index]), -1)
        seen[int(ids[index])] = index
    with open(path, "wb") as file:
        for index, object_id in enumerate(ids):
            file.write(struct.pack("<IQIq", index, int(object_id), int(sizes[object_id]), following[index]))


def working_set(path):
    sizes = {}
    with open(path, "rb") as file:
        data = file.read()
    for offset in range(0, len(data), 24):
        _, object_id, size, _ = struct.unpack_from("<IQIq", data, offset)
        sizes.setdefault(object_id, size)
    return len(sizes), sum(sizes.values())


def ours(bench, path, objects, capacities, policies):
    """Miss ratios by (policy, capacity), Belady's included, from the trace read whole; and the
    (policy, capacity) cells where the same run without bounds, which simulates the file as it
    reads it, counts other hits (none should)."""
    # --libcachesim: no per-entry cap, no disk, no warnings (the documented flag set).
    command = [bench, "simulate", path, "--libcachesim", "--memory", ",".join(f"{capacity}B" for capacity in capacities),
               "--policy", ",".join(policies), "--json", "--no-files"]
    if objects:
        command.append("--objects")

    def rows(extra):
        return json.loads(subprocess.run(command + extra, check=True, capture_output=True, text=True).stdout)["simulations"]

    whole, streamed = rows([]), rows(["--no-bounds"])
    hits = lambda run: {(row["result"]["policy"], row["memoryBytes"]): row["result"]["hits"] for row in run}
    streamed_differs = {cell for cell, count in hits(whole).items() if hits(streamed).get(cell) != count}
    misses = {(row["result"]["policy"], row["memoryBytes"]): 1 - row["result"]["hits"] / row["result"]["requests"]
              for row in whole}
    for row in whole:
        misses[(BELADY, row["memoryBytes"])] = 1 - row["bounds"]["belady"]
    return misses, streamed_differs


def theirs(path, objects, make, capacity):
    reader = lcs.TraceReader(path, lcs.TraceType.ORACLE_GENERAL_TRACE, lcs.ReaderInitParam(ignore_obj_size=objects))
    miss_ratio, _ = make(capacity).process_trace(reader)
    return miss_ratio


def all_policies():
    """Every compared policy: name → (libCacheSim constructor, note when only reported)."""
    policies = {**{name: (make, None) for name, make in GATED.items()}, **REPORTED}
    policies[BELADY] = (lambda size: lcs.Belady(size), "ours is MIN with bypass; theirs caches every newcomer")
    return policies


def compare(bench, path, objects):
    """The cells of one trace in one mode: both capacities, every policy."""
    policies = all_policies()
    count, total_bytes = working_set(path)
    footprint = count if objects else total_bytes
    # At least room for 50 average objects: S3-FIFO's small queue needs a few.
    floor = 50 * footprint // count
    capacities = [max(int(footprint * share), floor) for share in SHARES]
    # A small trace floors both shares at the same size; `simulate` takes each size once.
    simulated, streamed_differs = ours(bench, path, objects, sorted(set(capacities)),
                                       [name for name in policies if name != BELADY])
    cells = []
    for capacity, share in zip(capacities, SHARES):
        for name, (make, known) in policies.items():
            reference = theirs(path, objects, make, capacity)
            mine = simulated[(name, capacity)]
            gated = known is None or (name == BELADY and objects)
            within = abs(mine - reference) <= TOLERANCE
            if name == BELADY and objects:
                within = mine <= reference + 1e-9
            # Read as it is simulated, the run must count the very same hits.
            if (name, capacity) in streamed_differs:
                within, gated, known = False, True, "streamed while read, the run counts other hits"
            cells.append({"trace": os.path.basename(path).removesuffix(".oracleGeneral"),
                          "mode": "objects" if objects else "bytes", "share": share, "capacity": capacity,
                          "policy": name, "ours": mine, "libCacheSim": reference, "difference": mine - reference,
                          "gated": gated, "agrees": within, "note": known or ""})
    return cells


def main():
    bench, directory = sys.argv[1], sys.argv[2]
    json_path = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    write_zipf(os.path.join(directory, "zipf-0.8.oracleGeneral"))
    started = time.monotonic()
    units = [(bench, os.path.join(directory, file), objects)
             for file in sorted(os.listdir(directory)) for objects in (True, False)]
    # One trace and mode per process, as many at once as there are cores; the table keeps this order.
    with concurrent.futures.ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        cells = [cell for unit_cells in pool.map(compare, *zip(*units)) for cell in unit_cells]
    failures = sum(cell["gated"] and not cell["agrees"] for cell in cells)
    print(f"{'trace':<16} {'mode':<7} {'size':>4} {'policy':<21} {'ours':>8} {'libCacheSim':>11} {'diff':>8}  verdict")
    for cell in cells:
        if cell["policy"] == BELADY and cell["mode"] == "objects":
            verdict = "ok (ours ≤ theirs)" if cell["agrees"] else "DIFFERS: ours misses more than theirs"
        elif cell["gated"]:
            verdict = "ok" if cell["agrees"] else "DIFFERS"
        else:
            verdict = "ok" if cell["agrees"] else "known: " + cell["note"]
        print(f"{cell['trace']:<16} {cell['mode']:<7} {cell['share']:>4.0%} {cell['policy']:<21} {cell['ours']:>8.5f} "
              f"{cell['libCacheSim']:>11.5f} {cell['difference']:>+8.5f}  {verdict}")
    gated = [cell for cell in cells if cell["gated"]]
    print(f"\n{len(gated) - failures}/{len(gated)} gated cells agree (within {TOLERANCE} miss ratio; Belady in "
          f"object mode: ours misses no more than theirs); "
          f"{len(cells) - len(gated)} reported only; {time.monotonic() - started:.0f} s")
    if json_path:
        with open(json_path, "w") as file:
            json.dump({"tolerance": TOLERANCE, "cells": cells}, file, indent=2)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
