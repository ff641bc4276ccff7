"""One session from several Python threads: run releases the GIL, and every
thread gets exactly what a single thread gets."""

import threading
import time

import numpy as np

import switchyard


def test_threads_get_identical_results(session, resnet18):
    _, x, _ = resnet18
    # Three signatures (batch 1, 2, 3), so runs of different plans overlap.
    feeds = [x[:1], x, np.concatenate([x, x[:1]])]
    want = [session.run({"input": f})[0] for f in feeds]
    errors, mismatches = [], []
    start = threading.Barrier(6)

    def work(t):
        try:
            start.wait()
            for i in range(6):
                k = (t + i) % 3
                got, = session.run({"input": feeds[k]})
                if not np.array_equal(got, want[k]):
                    mismatches.append((t, i))
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert mismatches == []


def test_run_releases_the_gil(resnet18):
    path, x, _ = resnet18
    # One kernel thread, so this thread has a core of its own even on 2 cores.
    before = switchyard.get_option("cpu.threads")
    switchyard.set_option("cpu.threads", 1)
    try:
        # cpu:0, whose threads cpu.threads sets (the default path's dnnl:0
        # keeps its own OpenMP threads, which would compete for the cores).
        session = switchyard.Session(path, device="cpu:0")
        big = np.repeat(x, 128, axis=0)  # batch 256: a run long enough to see a stall
        session.run({"input": big})  # compiled
        begin = time.perf_counter()
        session.run({"input": big})
        one_run = time.perf_counter() - begin

        done = threading.Event()

        def runs():
            for _ in range(3):
                session.run({"input": big})
            done.set()

        thread = threading.Thread(target=runs)
        ticks = [time.perf_counter()]
        thread.start()
        while not done.is_set():
            time.sleep(0.001)
            ticks.append(time.perf_counter())
        thread.join()
    finally:
        switchyard.set_option("cpu.threads", before)
    # Holding the GIL through a run would stall this thread for a whole run.
    longest_stall = max(b - a for a, b in zip(ticks, ticks[1:]))
    print(f"one run {one_run * 1e3:.1f} ms, longest stall of this thread {longest_stall * 1e3:.1f} ms")
    assert longest_stall < 0.5 * one_run, (longest_stall, one_run)


def test_moving_while_running_is_safe(resnet18):
    path, x, want = resnet18
    # On cpu:0 from the start: to("cpu") below moves nothing, it only waits.
    session = switchyard.Session(path, device="cpu")
    errors = []

    def runs():
        try:
            for _ in range(5):
                got, = session.run({"input": x})
                np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    thread = threading.Thread(target=runs)
    thread.start()
    for _ in range(5):
        session.to("cpu")  # exclusive: waits for the runs in flight
    thread.join()
    assert errors == []
