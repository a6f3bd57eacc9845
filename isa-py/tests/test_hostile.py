"""Hostile input never crashes the interpreter: every bad value is a Python exception."""

import os
import random

import gpuisa
import pytest


def test_random_words_decode_or_raise_decode_error():
    rng = random.Random(7)
    ok = 0
    for _ in range(3000):
        w = rng.getrandbits(128)
        try:
            i = gpuisa.decode(w)
        except gpuisa.DecodeError:
            continue
        ok += 1
        assert gpuisa.encode(str(i)) == w or str(gpuisa.decode(gpuisa.encode(str(i)))) == str(i)
        i.fields, i.operands, i.flow, i.target
    data = os.urandom(16 * 500)
    got = gpuisa.decode_bytes(data, strict=False)
    assert len(got) == 500


def test_words_out_of_range_and_wrong_types_are_python_errors():
    for bad in [-1, 1 << 128]:
        with pytest.raises(OverflowError):
            gpuisa.decode(bad)
    with pytest.raises(TypeError):
        gpuisa.decode("NOP")
    with pytest.raises(TypeError):
        gpuisa.encode(5)
    with pytest.raises(TypeError):
        gpuisa.decode_bytes([1, 2])


def test_hostile_text_objects_and_states_are_located_errors():
    rng = random.Random(3)
    alphabet = "RUPBZ0123456789x,.;[]{}`()@!-+ \n\t/*:_" + "é☃\x00"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 80)))
        try:
            gpuisa.assemble(text)
        except gpuisa.AsmError as e:
            assert e.line >= 1 and e.column >= 1 and e.message
    for blob in [b"\x7fELF" + os.urandom(200), b"\x7fELF\x02\x01\x01" + b"\x00" * 57]:
        with pytest.raises(gpuisa.IsaError):
            gpuisa.disassemble(blob, strict=True)
    for state in ['{"gpr": {"R0": 1e400}}', '[' * 10000, '{"valid_mask": "0x1ffffffff"}', "\x00"]:
        with pytest.raises(gpuisa.StateError):
            gpuisa.Machine("EXIT", state)


def test_a_long_run_is_bounded_and_the_result_says_so():
    m = gpuisa.Machine("NOP\nUIADD UR1, UR1, 0x1\nBRA 0x0\n")
    r = m.run(max_steps=100_000)
    assert r.fault.kind == "StepLimit" and m.steps == 100_000
