"""The simulator: machines built from text, programs or words and a state; step, run,
observers, registers and the final state, compared with `isa run`."""

import json
import subprocess

import gpuisa
import pytest

LANES = 32

SUM = """\
        S2R R1, SR_LANEID
        UMOV UR1, 0x0
.L_loop:
        UIADD UR1, UR1, 0x1
        UISETP.GE.U32.AND UP0, UPT, UR1, 0x4, UPT
        USEL UR2, URZ, 0xffffffc0, UP0      // UP0 ? go on : back to .L_loop
        BRX UR2, `(.L_done)
.L_done:
        REDUX.SUM R4, R1
        EXIT
"""


def run_isa(isa_bin, tmp_path, text, state=None, trace=False):
    """`isa run` of `text`: (exit status, final state, trace lines)."""
    src = tmp_path / "p.s"
    src.write_text(text)
    args = [isa_bin, "run", str(src)]
    if state is not None:
        (tmp_path / "state.json").write_text(json.dumps(state))
        args += ["--state", str(tmp_path / "state.json")]
    if trace:
        args += ["--trace", str(tmp_path / "trace.jsonl")]
    p = subprocess.run(args, capture_output=True, text=True)
    lines = []
    if trace:
        lines = [json.loads(l) for l in (tmp_path / "trace.jsonl").read_text().splitlines()]
    return p.returncode, json.loads(p.stdout) if p.stdout else None, lines


def test_a_program_runs_to_the_state_isa_run_prints(isa_bin, tmp_path):
    state = {"gpr": {"R7": 5}, "ur": {"UR9": 3}, "cmem": {"0": {"0x10": 9}}}
    m = gpuisa.Machine(SUM, state)
    r = m.run()
    assert r and r.exited and r.fault is None and r.steps == m.steps
    assert m.exited and repr(r).startswith("<gpuisa.RunResult exited")
    assert m.reg(4) == [sum(range(LANES))] * LANES
    assert m.reg(1, 3) == 3 and m.ureg(1) == 4 and m.reg(7) == [5] * LANES
    assert m.cmem(0, 0x10) == 9
    code, final, _ = run_isa(isa_bin, tmp_path, SUM, state)
    assert code == 0 and m.state() == final


def test_stepping_with_an_observer_matches_the_trace_of_isa_run(isa_bin, tmp_path):
    seen = []
    m = gpuisa.Machine(SUM)
    first = m.step()
    assert first.number == 1 and first.pc == 0 and first.text == "S2R R1, SR_LANEID"
    assert first.writes == {"gpr": {"R1": list(range(LANES))}}
    assert str(first.instruction) == first.text
    r = m.run(observer=seen.append)
    assert r.exited and len(seen) + 1 == m.steps
    _, _, trace = run_isa(isa_bin, tmp_path, SUM, trace=True)
    steps = [l for l in trace if "text" in l]
    assert [first.record] + [s.record for s in seen] == steps
    assert trace[-1]["exited"] is True and trace[-1]["steps"] == m.steps


def test_step_by_step_equals_run(isa_bin, tmp_path):
    a, b = gpuisa.Machine(SUM), gpuisa.Machine(SUM)
    recs = []
    while (s := a.step()) is not None:
        recs.append(s.record)
    assert a.exited and a.step() is None
    b.run()
    assert a.state() == b.state()
    _, _, trace = run_isa(isa_bin, tmp_path, SUM, trace=True)
    assert recs == [l for l in trace if "text" in l]


def test_registers_predicates_and_masks_are_read_and_written_between_steps():
    m = gpuisa.Machine("IADD3 R2, R1, R1, RZ\nEXIT\n" if False else "UIADD UR1, UR1, 0x1\nEXIT\n")
    m.set_reg(3, list(range(LANES)))
    m.set_reg(4, 7)
    m.set_reg(5, 9, lane=2)
    assert m.reg(3) == list(range(LANES)) and m.reg(4) == [7] * LANES
    assert m.reg(5, 2) == 9 and m.reg(5, 1) == 0
    m.set_pred(1, [l % 2 == 0 for l in range(LANES)])
    assert m.pred(1)[:3] == [True, False, True] and m.pred(1, 3) is False
    m.set_pred(2, True)
    assert all(m.pred(2))
    m.set_ureg(1, 41)
    m.set_upred(3, True)
    m.set_breg(15, 6)
    m.set_cmem(3, 0x20, 0xDEAD)
    assert (m.upred(3), m.breg(15), m.cmem(3, 0x20)) == (True, 6, 0xDEAD)
    m.valid_mask = 0xFFFF
    m.active_mask = 0xFFFF
    s = m.step()
    assert s.active_mask == 0xFFFF and s.writes == {"ur": {"UR1": 42}}
    st = m.state()
    assert st["ur"]["UR1"] == 42 and st["breg"]["B15"] == 6
    assert st["cmem"]["3"]["0x20"] == 0xDEAD and st["valid_mask"] == "0x0000ffff"
    assert m.pc == 0x10 and m.steps == 1 and m.cycles >= 1
    assert m.run().exited and m.valid_mask == 0 and m.exited
    assert (m.yield_mask, m.sleep_mask, m.switch_mask) == (0, 0, 0)
    m.yield_mask, m.sleep_mask, m.switch_mask = 1, 2, 4
    assert (m.yield_mask, m.sleep_mask, m.switch_mask) == (1, 2, 4)
    st = m.state()
    assert (st["yield_mask"], st["sleep_mask"], st["switch_mask"]) == ("0x00000001", "0x00000002", "0x00000004")
    assert "exited" in repr(m)


def test_machines_take_programs_words_and_records():
    prog = gpuisa.assemble(SUM)
    by_text, by_prog = gpuisa.Machine(SUM), gpuisa.Machine(prog)
    by_words = gpuisa.Machine(prog.words)
    by_bytes = gpuisa.Machine(prog.to_bytes())
    for m in (by_text, by_prog, by_words, by_bytes):
        assert m.run().exited
    assert by_text.state() == by_prog.state() == by_words.state() == by_bytes.state()
    at = gpuisa.Machine([gpuisa.encode("EXIT")], base=0x100)
    assert at.pc == 0x100 and at.run().exited and "fault" not in at.state()
    # Text and Programs place themselves: a base for them is an error, not ignored.
    for placed in (SUM, prog):
        with pytest.raises(gpuisa.IsaError) as e:
            gpuisa.Machine(placed, base=0x100)
        assert "/*addr*/" in str(e.value)


def test_a_fault_is_a_result_of_run_and_an_exception_of_step(isa_bin, tmp_path):
    loop = "NOP\n.L: BRA `(.L)\n"
    m = gpuisa.Machine(loop)
    r = m.run(1000)
    assert not r and not r.exited and isinstance(r.fault, gpuisa.Fault)
    assert r.fault.kind == "Livelock" and r.fault.pc == 0x10 and r.fault.line == 2
    assert "livelock" in r.fault.message
    code, final, _ = run_isa(isa_bin, tmp_path, loop)
    assert code == 2 and final["fault"].endswith(r.fault.message)
    # The state after the fault is the one `isa run` prints, its fault without the path.
    st = m.state()
    assert st["fault"] == "2: runtime fault: " + r.fault.message
    assert final["fault"] == str(tmp_path / "p.s") + ":" + st["fault"]
    del st["fault"], final["fault"]
    assert st == final
    limited = gpuisa.Machine(loop).run(max_steps=5)
    assert limited.fault.kind == "StepLimit" and limited.steps == 5
    out = gpuisa.Machine("BRA 0x100\n")
    out.step()
    with pytest.raises(gpuisa.Fault) as e:
        out.step()
    assert e.value.kind == "OutsideProgram" and e.value.pc == 0x0 or e.value.pc == 0x100


def test_an_exception_in_the_observer_stops_the_run_there():
    m = gpuisa.Machine(SUM)
    calls = []

    def observer(step):
        calls.append(step.number)
        if step.number == 3:
            raise KeyError("mismatch")

    with pytest.raises(KeyError):
        m.run(observer=observer)
    assert calls == [1, 2, 3] and m.steps == 3 and not m.exited
    # The machine is running inside its observer: reading it there is an error.
    with pytest.raises(RuntimeError):
        m.run(observer=lambda s: m.reg(1))
    assert m.steps == 4
    # The machine goes on from where it stopped.
    assert m.run().exited


def test_bad_states_are_state_errors_with_the_json_path():
    with pytest.raises(gpuisa.StateError) as e:
        gpuisa.Machine("EXIT", {"gpr": {"R0": "x"}})
    assert e.value.path == "$.gpr.R0" and "found" in e.value.message
    with pytest.raises(gpuisa.StateError) as e:
        gpuisa.Machine("EXIT", {"gpr": {"R0": [1, 2]}})
    assert e.value.path == "$.gpr.R0"
    with pytest.raises(gpuisa.StateError) as e:
        gpuisa.Machine("EXIT", '{"gpr": {"R300": 1}}')
    assert str(e.value).startswith("1:") and e.value.path == "$.gpr.R300"
    with pytest.raises(gpuisa.StateError):
        gpuisa.Machine("EXIT", '{"gpr": ')
    with pytest.raises(gpuisa.StateError):
        gpuisa.Machine("EXIT", {"gpr": {1, 2}})
    with pytest.raises(gpuisa.StateError):
        gpuisa.Machine("EXIT", 42)


def test_bad_programs_and_register_numbers_are_errors():
    with pytest.raises(gpuisa.AsmError) as e:
        gpuisa.Machine("NOP\nFROB\n")
    assert (e.value.line, e.value.column) == (2, 1)
    with pytest.raises(gpuisa.IsaError):
        gpuisa.Machine("")
    with pytest.raises(gpuisa.IsaError):
        gpuisa.Machine(b"\x00" * 17)
    with pytest.raises(gpuisa.IsaError):
        gpuisa.Machine(3.5)
    vec_like = gpuisa.Machine("EXIT")
    with pytest.raises(gpuisa.IsaError) as e:
        vec_like.set_reg(1, -1)
    assert "32-bit unsigned" in str(e.value)
    for bad in [lambda: vec_like.reg(255), lambda: vec_like.reg(0, 32),
                lambda: vec_like.pred(7), lambda: vec_like.ureg(63),
                lambda: vec_like.upred(7), lambda: vec_like.breg(16),
                lambda: vec_like.cmem(0, 2), lambda: vec_like.set_reg(0, [1] * 31),
                lambda: vec_like.set_cmem(0, 0x7FFFFFFC, 1)]:
        with pytest.raises(gpuisa.IsaError):
            bad()


def test_programs_of_another_spec_do_not_run(root):
    vec = gpuisa.Spec.load(root / "tests" / "specs" / "vec")
    with pytest.raises(gpuisa.IsaError) as e:
        gpuisa.Machine(vec.assemble("VALU.ADD V1, V2, V3\n"))
    assert "bundled" in str(e.value)


def test_steps_tell_guard_lanes_events_and_masks(root, isa_bin, tmp_path):
    text = (root / "docs" / "examples" / "divergence.s").read_text()
    steps = []
    m = gpuisa.Machine(text)
    r = m.run(observer=steps.append)
    assert r.exited
    guarded = [s for s in steps if s.text.startswith("@P0 BRA")][0]
    # P0 holds in lanes 16..31 (SHFL.UP by 16): the branch is taken there only.
    assert guarded.active_mask == 0xFFFFFFFF and guarded.guard == 0xFFFF0000
    assert guarded.valid_mask == 0xFFFFFFFF and guarded.instruction.conditional
    sleeps = [s for s in steps if s.event is not None]
    assert sleeps and all(s.event["kind"] == "SLEEP" for s in sleeps)
    # A sleep is reported by the step that ends it, with the sleeping lanes.
    assert sleeps[0].event["lanes"] == "0x0000ffff" and sleeps[0].event["until"] > 0
    exits = [s for s in steps if "EXIT" in s.text]
    assert exits[0].writes == {"valid_mask": "0x0fffffff", "active_mask": "0x0fff0000"}
    assert repr(steps[0]) == "<gpuisa.Step 1 pc=0x0000 lanes=0xffffffff: SHFL.UP P0, R9, R0, 0x10, 0x0>"
    _, final, trace = run_isa(isa_bin, tmp_path, text, trace=True)
    events = [l for l in trace if "event" in l]
    assert [s.event for s in sleeps] == [e["event"] for e in events]
    assert m.state() == final


def test_module_constants():
    assert gpuisa.DEFAULT_MAX_STEPS == 10_000_000
    assert gpuisa.__version__.count(".") == 2
