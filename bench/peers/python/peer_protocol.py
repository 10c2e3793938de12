"""Line protocol of bench/peers (see lib/peer-process.ts) for peers written in Python.

A peer module defines a class with build(corpus, index_dir, split), open(index_dir,
split), search(query, k, flt) -> hit count, rank(query, k) -> article ids, and
versions() -> dict; `serve(PeerClass)` runs the protocol. Throughput uses one
process per thread, each with its own connection to the index: these libraries
are driven from Python, whose interpreter lock would otherwise serialise them.
The processes take queries from counters in shared memory, as the other peers'
threads take them from one counter.
"""
import json
import multiprocessing
import sys
import time

# Lucene's English stopwords, the 33 the engine and Lucene's EnglishAnalyzer use.
STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with".split()
)


def parse_filter(text):
    if text == "-":
        return None
    date_from, date_to, kind = text.split(":")
    return int(date_from), int(date_to), kind


def rows(corpus):
    """(paragraph id, article, date YYYYMMDD int, type, title, text) per corpus line."""
    with open(corpus, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            pid, article, date, kind, title, text = line.split("\t")
            yield pid, article, int(date.replace("-", "")) if date else 0, kind, title, text


def memory():
    values = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024
    return {"rssMiB": values["VmRSS"], "peakRssMiB": values["VmHWM"]}


def read_queries(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


_worker = None
_taken = None


def _init_worker(peer_class, index_dir, split, taken):
    global _worker, _taken
    _worker = peer_class()
    _worker.open(index_dir, split)
    _taken = taken


def _answer_share(task):
    """Takes queries in turn, cycling the list, until the budget is spent or the whole list was taken and the
    minimum window has passed (node/repetition.ts's rule); returns how many this process answered."""
    queries, k, flt, deadline, window = task
    answered = 0
    while True:
        now = time.time()
        with _taken.get_lock():
            i = _taken.value
            if now >= deadline or (i >= len(queries) and now >= window):
                return answered
            _taken.value = i + 1
        _worker.search(queries[i % len(queries)], k, flt)
        answered += 1


def _ready(_):
    return 1


_pools = {}


def _pool(peer_class, index_dir, split, threads):
    """The worker processes of an index and their counter: started and opened at the first repetition, before its
    timing starts, and kept for the next ones (as every peer keeps its pool)."""
    key = (index_dir, split, threads)
    if key not in _pools:
        context = multiprocessing.get_context("fork")
        taken = context.Value("q", 0)
        pool = context.Pool(threads, initializer=_init_worker, initargs=(peer_class, index_dir, split, taken))
        pool.map(_ready, range(threads * 4))  # every worker started and opened
        _pools[key] = (pool, taken)
    return _pools[key]


def close_pools():
    for pool, _ in _pools.values():
        pool.terminate()
    _pools.clear()


def throughput(peer_class, index_dir, split, queries, k, flt, threads, max_seconds, min_seconds):
    pool, taken = _pool(peer_class, index_dir, split, threads)
    taken.value = 0
    start_time = time.time()
    start = time.perf_counter()
    tasks = [(queries, k, flt, start_time + max_seconds, start_time + min_seconds)] * threads
    done = sum(pool.map(_answer_share, tasks, chunksize=1))
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "queries": done}


def serve(peer_class):
    peer = peer_class()
    opened = None
    for line in sys.stdin:
        args = line.rstrip("\n").split("\t")
        op = args[0]
        try:
            if op == "build":
                start = time.perf_counter()
                peer.build(args[1], args[2], args[3] == "split")
                reply = {"seconds": time.perf_counter() - start}
            elif op == "open":
                start = time.perf_counter()
                peer.open(args[1], args[2] == "split")
                opened = (args[1], args[2] == "split")
                reply = {"seconds": time.perf_counter() - start}
            elif op == "latency":
                k, flt, deadline = int(args[2]), parse_filter(args[3]), time.perf_counter() + float(args[4])
                ms, hits = [], 0
                for query in read_queries(args[1]):
                    start = time.perf_counter()
                    hits += peer.search(query, k, flt)
                    now = time.perf_counter()
                    ms.append((now - start) * 1000)
                    if now > deadline:
                        break
                reply = {"ms": ms, "hits": hits}
            elif op == "rank":
                reply = {"rankings": [peer.rank(q, int(args[2])) for q in read_queries(args[1])]}
            elif op == "throughput":
                reply = throughput(type(peer), opened[0], opened[1], read_queries(args[1]), int(args[2]), parse_filter(args[3]), int(args[4]), float(args[5]), float(args[6]))
            elif op == "memory":
                reply = memory()
            elif op == "versions":
                reply = {"python": sys.version.split()[0], **peer.versions()}
            elif op == "quit":
                close_pools()
                peer.close()
                reply = {}
            else:
                reply = {"error": "unknown command " + op}
        except Exception as error:  # reported to the harness, which stops this peer
            import traceback
            reply = {"error": "".join(traceback.format_exception(error))}
        sys.stdout.write("@@ " + json.dumps(reply) + "\n")
        sys.stdout.flush()
        if op == "quit":
            break
