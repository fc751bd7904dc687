// Why scaled-down SIEVE reads high (BENCHMARKS.md, "Sampled miss-ratio curves").
// SIEVE on an independent-reference Zipf stream over a key population, whole or
// spatially sampled (each key kept with probability RATE, the cache scaled to
// RATE x its size), measuring what the hand does: visited entries it passes per
// eviction, and the time between its passes over the whole queue, in requests of
// the whole stream. Prints the hit ratio (after a 20 % warm-up) and, per band of
// popularity rank (1-10, 10-100, ...), the fraction of that band's requests that hit.
//   cc -O2 scripts/sieve-sweep-period.c -lm -o /tmp/ssp && /tmp/ssp RATE SIZE [REQUESTS_PER_KEY KEYS ALPHA SEED]
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;
static double uniform(void) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s RATE SIZE [REQUESTS_PER_KEY KEYS ALPHA SEED]\n", argv[0]); return 2; }
    double rate = atof(argv[1]);
    long size = atol(argv[2]);
    double perKey = argc > 3 ? atof(argv[3]) : 100;
    int population = argc > 4 ? atoi(argv[4]) : 1000000;
    double alpha = argc > 5 ? atof(argv[5]) : 0.8;
    state = 0x9E3779B97F4A7C15ull * (uint64_t)(argc > 6 ? atoi(argv[6]) + 1 : 1);

    // Kept keys: their popularity rank and cumulative share of the kept requests.
    int *rank = malloc(sizeof(int) * population);
    double *cumulative = malloc(sizeof(double) * population);
    int keys = 0; double kept = 0, whole = 0;
    for (int i = 0; i < population; i++) {
        double weight = pow(i + 1.0, -alpha);
        whole += weight;
        if (rate >= 1 || uniform() < rate) { kept += weight; cumulative[keys] = kept; rank[keys++] = i; }
    }
    for (int i = 0; i < keys; i++) cumulative[i] /= kept;
    double share = kept / whole;                       // the kept keys' share of the whole stream
    long capacity = lround(rate * size), requests = (long)(perKey * population * share), warmUp = requests / 5;

    // The queue: toNewer/toOlder links, newest at head; the hand walks from the tail toward the head.
    int *toNewer = malloc(sizeof(int) * keys), *toOlder = malloc(sizeof(int) * keys);
    char *cached = calloc(keys, 1), *visited = calloc(keys, 1);
    long *keyHits = calloc(keys, sizeof(long)), *keyRequests = calloc(keys, sizeof(long));
    int head = -1, tail = -1, hand = -1;
    long count = 0, hits = 0, evictions = 0, passed = 0, sweeps = 0, lastWrap = -1;
    double sweepTime = 0;
    for (long request = 0; request < requests; request++) {
        double u = uniform();
        int low = 0, high = keys - 1;
        while (low < high) { int middle = (low + high) / 2; if (cumulative[middle] < u) low = middle + 1; else high = middle; }
        int key = low;
        int counted = request >= warmUp;
        keyRequests[key] += counted;
        if (cached[key]) { visited[key] = 1; hits += counted; keyHits[key] += counted; continue; }
        if (count >= capacity) {
            int victim = hand >= 0 ? hand : tail;
            evictions += counted;
            for (;;) {
                if (!visited[victim]) break;
                visited[victim] = 0; passed += counted;
                if (toNewer[victim] >= 0) { victim = toNewer[victim]; continue; }
                victim = tail;                          // past the head: a sweep ends
                if (lastWrap >= warmUp) { sweepTime += request - lastWrap; sweeps++; }
                lastWrap = request;
            }
            hand = toNewer[victim];
            if (hand < 0) { if (lastWrap >= warmUp) { sweepTime += request - lastWrap; sweeps++; } lastWrap = request; }
            if (toNewer[victim] >= 0) toOlder[toNewer[victim]] = toOlder[victim]; else head = toOlder[victim];
            if (toOlder[victim] >= 0) toNewer[toOlder[victim]] = toNewer[victim]; else tail = toNewer[victim];
            cached[victim] = 0; count--;
        }
        toOlder[key] = head; toNewer[key] = -1;
        if (head >= 0) toNewer[head] = key;
        head = key; if (tail < 0) tail = key;
        cached[key] = 1; visited[key] = 0; count++;
    }
    printf("rate %g  cache %ld  keys %d  hit ratio %.4f  visited passed per eviction %.4f  sweeps %ld  sweep period %.3g requests of the whole stream\n",
           rate, capacity, keys, (double)hits / (double)(requests - warmUp), (double)passed / (double)evictions,
           sweeps, sweeps ? sweepTime / sweeps / share : 0);
    printf("hit ratio by popularity rank:");
    for (int band = 0; band < 7; band++) {
        long bandHits = 0, bandRequests = 0;
        for (int i = 0; i < keys; i++)
            if (rank[i] + 1 >= pow(10, band) && rank[i] + 1 < pow(10, band + 1)) { bandHits += keyHits[i]; bandRequests += keyRequests[i]; }
        if (bandRequests) printf("  %.0e-%.0e %.3f", pow(10, band), pow(10, band + 1), (double)bandHits / (double)bandRequests);
    }
    printf("\n");
    return 0;
}
