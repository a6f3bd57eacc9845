"""Throughput from Python, beside the same work in Rust (`isa run`, `isa disasm`).

    python isa-py/bench/throughput.py [--isa target/release/isa]

Prints: records decoded per second by one `decode_bytes` call on 1M records; simulator
steps per second through `run()` (GIL released), `run(observer=…)` and a `step()` loop;
and `isa run` on the same program. Numbers only: no assertion (speed targets are not
tests).
"""

import argparse
import json
import os
import subprocess
import tempfile
import time

import gpuisa

LOOP = """\
        UMOV UR1, 0x0
.L_loop:
        UIADD UR1, UR1, 0x1
        UISETP.GE.U32.AND UP0, UPT, UR1, {n:#x}, UPT
        USEL UR2, URZ, 0xffffffc0, UP0
        BRX UR2, `(.L_done)
.L_done:
        EXIT
"""


def uniform_loop():
    """The loop of isa-runtime's criterion bench `sim/uniform`, read from its source
    (isa-runtime/benches/sim.rs), so that both measure the same program."""
    src = open(os.path.join(os.path.dirname(__file__), "..", "..", "isa-runtime",
                            "benches", "sim.rs")).read()
    return src.split('const UNIFORM: &str = "', 1)[1].split('";', 1)[0]


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--isa", default=None, help="the isa command (for the Rust figure)")
    ap.add_argument("--records", type=int, default=1_000_000)
    args = ap.parse_args()

    # Words of every kind the disassembler meets: the assembled lines of a real program.
    base = gpuisa.assemble(open(os.path.join(os.path.dirname(__file__), "..", "..",
                                             "docs", "examples", "divergence.s")).read())
    words = base.to_bytes()
    n = args.records
    data = (words * (n // len(base) + 1))[: 16 * n]
    t, got = best(lambda: gpuisa.decode_bytes(data))
    assert len(got) == n
    print(f"decode_bytes: {n} records in {t * 1e3:.0f} ms = {n / t / 1e6:.2f} M records/s")
    t, got = best(lambda: [str(i) for i in gpuisa.decode_bytes(data[: 16 * 100_000])])
    print(f"decode_bytes + str(): {100_000 / t / 1e6:.2f} M instructions/s")

    iters = 250_000
    text = LOOP.format(n=iters)
    steps = 1 + 4 * iters + 1
    t, r = best(lambda: gpuisa.Machine(text).run())
    assert r.exited and r.steps == steps, r
    print(f"run(): {steps} steps in {t * 1e3:.0f} ms = {steps / t / 1e6:.2f} M steps/s")
    t, _ = best(lambda: gpuisa.Machine(text).run(observer=lambda s: None), repeat=1)
    print(f"run(observer=no-op): {steps / t / 1e3:.0f} k steps/s")

    def loop():
        m = gpuisa.Machine(text)
        k = 0
        while m.step() is not None:
            k += 1
        return k

    t, k = best(loop, repeat=1)
    print(f"step() loop: {k} steps in {t * 1e3:.0f} ms = {k / t / 1e3:.0f} k steps/s")

    def uniform():
        m = gpuisa.Machine(uniform_loop())
        r = m.run(max_steps=1_000_000)
        assert r.fault.kind == "StepLimit", r
        return m.steps

    t, k = best(uniform)
    print(f"run() on sim/uniform's loop: {k / t / 1e6:.2f} M steps/s")

    if args.isa:
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "words.bin")
            with open(raw, "wb") as f:
                f.write(data)
            t, out = best(lambda: subprocess.run([args.isa, "disasm", raw], check=True,
                                                 capture_output=True).stdout, repeat=1)
            print(f"isa disasm (Rust, whole process) of the {n} records: "
                  f"{n / t / 1e6:.2f} M instructions/s")
            t, listing = best(lambda: gpuisa.disassemble(data), repeat=1)
            assert listing.encode() == out
            print(f"disassemble() of the same: {n / t / 1e6:.2f} M instructions/s")
            src = os.path.join(d, "loop.s")
            with open(src, "w") as f:
                f.write(text)
            t, out = best(lambda: subprocess.run([args.isa, "run", src], check=True,
                                                 capture_output=True, text=True).stdout)
            assert json.loads(out)["steps"] == steps
            print(f"isa run (Rust, whole process): {steps / t / 1e6:.2f} M steps/s")


if __name__ == "__main__":
    main()
