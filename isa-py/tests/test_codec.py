"""The codec: words to instructions and back, for the bundled spec and a loaded one."""

import gpuisa
import pytest


def test_encode_then_decode_round_trips_with_the_facts_of_the_instruction():
    word = gpuisa.encode("@!P2 BRA 0x40", 0x10)
    i = gpuisa.decode(word, 0x10)
    assert i.word == word and int(i) == word and i.address == 0x10
    assert str(i) == "@!P2 BRA 0x40"
    assert i.mnemonic == "BRA" and i.opcode.startswith("BRA")
    assert i.flow == "branch" and i.conditional and i.target == 0x40
    assert i.fields["pg"] == "P2" and i.fields["pg.not"] == "True"
    assert i.codes["pg"] == 2
    guard = [o for o in i.operands if o.guard]
    assert len(guard) == 1 and guard[0].registers == ["P2"] and guard[0].reads
    assert not guard[0].writes and guard[0].access == "read"
    assert repr(i) == "<gpuisa.Instruction 0x0010: @!P2 BRA 0x40>"


def test_operands_name_every_register_of_a_pair_with_its_access():
    i = gpuisa.decode(gpuisa.encode("UIMAD.WIDE.U32 UR[4:5], UR6, UR8, UR[10:11]"))
    ops = {o.name: (o.file, o.registers, o.access, o.guard, o.constant) for o in i.operands}
    assert ops == {
        "upg": ("UPred", ["UPT"], "read", True, True),
        "urd": ("UReg", ["UR4", "UR5"], "write", False, False),
        "upu": ("UPred", ["UPT"], "write", False, True),
        "ura": ("UReg", ["UR6"], "read", False, False),
        "urb": ("UReg", ["UR8"], "read", False, False),
        "urc": ("UReg", ["UR10", "UR11"], "read", False, False),
        "upp": ("UPred", ["UPT"], "read", False, True),
    }
    w = [o for o in i.operands if o.name == "urd"][0]
    assert w.writes and not w.reads and not w.index
    assert repr(w) == "<gpuisa.Operand urd write UR4:UR5>"


def test_a_guarded_write_is_conditional_and_a_constant_register_holds_no_state():
    i = gpuisa.decode(gpuisa.encode("@UP0 UMOV UR1, URZ"))
    acc = {tuple(o.registers): o for o in i.operands}
    assert acc[("UR1",)].access == "conditional write"
    assert acc[("URZ",)].constant and not acc[("UR1",)].constant


def test_a_word_that_does_not_decode_raises_with_the_reason():
    with pytest.raises(gpuisa.DecodeError) as e:
        gpuisa.decode(1)
    assert "no opcode matches" in str(e.value) and e.value.word == 1
    assert isinstance(e.value, gpuisa.IsaError) and isinstance(e.value, ValueError)


def test_decode_bytes_reads_records_and_reports_the_bad_one():
    words = [gpuisa.encode(t, 0x100 + 16 * k) for k, t in enumerate(["NOP", "EXIT", "BRA 0x0"])]
    data = b"".join(w.to_bytes(16, "little") for w in words)
    got = gpuisa.decode_bytes(data, 0x100)
    assert [str(i) for i in got] == ["NOP", "EXIT", "BRA 0x0"]
    assert [i.address for i in got] == [0x100, 0x110, 0x120]
    bad = data[:16] + (1).to_bytes(16, "little") + data[16:]
    with pytest.raises(gpuisa.DecodeError) as e:
        gpuisa.decode_bytes(bad)
    assert e.value.offset == 16 and e.value.word == 1 and "record 1" in str(e.value)
    lenient = gpuisa.decode_bytes(bad, strict=False)
    assert lenient[1] is None and str(lenient[2]) == "EXIT"
    with pytest.raises(gpuisa.DecodeError) as e:
        gpuisa.decode_bytes(data[:20])
    assert "16-byte records" in str(e.value)
    assert len(gpuisa.decode_bytes(b"")) == 0 and list(gpuisa.decode_bytes(b"")) == []


def test_decoded_records_are_a_sequence():
    words = [gpuisa.encode("NOP"), 1, gpuisa.encode("EXIT")]
    data = b"".join(w.to_bytes(16, "little") for w in words)
    seq = gpuisa.decode_bytes(data, 0x40, strict=False)
    assert len(seq) == 3 and seq.words == words
    assert str(seq[0]) == "NOP" and seq[1] is None and str(seq[-1]) == "EXIT"
    assert seq[-1].address == 0x60 and seq[0] == gpuisa.decode(words[0], 0x40)
    assert [None if i is None else str(i) for i in seq] == ["NOP", None, "EXIT"]
    for k in (3, -4):
        with pytest.raises(IndexError):
            seq[k]
    assert repr(seq) == "<gpuisa.Instructions 3 records at 0x40, 1 undecodable>"
    assert [str(i) for i in seq[0:3:2]] == ["NOP", "EXIT"] and seq[1:2] == [None]
    assert seq[::-1][0] == seq[2] and seq[5:] == []
    # bytearray and memoryview hold records too.
    assert len(gpuisa.decode_bytes(bytearray(data), strict=False)) == 3
    assert str(gpuisa.decode_bytes(memoryview(data), strict=False)[2]) == "EXIT"
    with pytest.raises(TypeError):
        gpuisa.decode_bytes("NOP")


def test_addresses_are_16_byte_aligned():
    word = gpuisa.encode("NOP")
    for bad in [lambda: gpuisa.decode(word, 3), lambda: gpuisa.decode_bytes(b"", 8),
                lambda: gpuisa.disassemble([word], 0x41),
                lambda: gpuisa.Machine([word], base=4)]:
        with pytest.raises(gpuisa.IsaError) as e:
            bad()
        assert "16-byte aligned" in str(e.value)


def test_encode_errors_carry_line_column_and_message():
    with pytest.raises(gpuisa.AsmError) as e:
        gpuisa.encode("BRA R1, 0x40")
    assert e.value.line == 1 and e.value.column >= 1
    assert e.value.message and e.value.errors[0][2] == e.value.message
    with pytest.raises(gpuisa.AsmError) as e:
        gpuisa.encode("  FROB R1")
    assert (e.value.column, e.value.message) == (3, "unknown mnemonic `FROB`")
    assert gpuisa.encode(".word 0x1234") == 0x1234


def test_instructions_compare_and_hash_by_word_address_and_spec():
    a, b = gpuisa.decode(gpuisa.encode("NOP")), gpuisa.decode(gpuisa.encode("NOP"))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != gpuisa.decode(gpuisa.encode("NOP"), 0x10) and a != "NOP"


def test_a_loaded_spec_is_interpreted_with_the_same_behaviour(root):
    vec = gpuisa.Spec.load(root / "tests" / "specs" / "vec")
    assert "vec" in vec.origin and len(vec.opcodes) > 0
    assert repr(vec).startswith("<gpuisa.Spec ")
    word = vec.encode("VALU.ADD V1, V2, V3")
    i = vec.decode(word)
    assert str(i) == "VALU.ADD V1, V2, V3" and i.mnemonic == "VALU"
    assert {tuple(o.registers) for o in i.operands if o.reads} >= {("V2",), ("V3",)}
    # The same word means something else, or nothing, in the bundled spec.
    bundled = gpuisa.Spec.bundled()
    assert bundled.origin == "bundled"
    try:
        assert str(bundled.decode(word)) != str(i)
    except gpuisa.DecodeError:
        pass
    with pytest.raises(gpuisa.AsmError):
        vec.encode("EXIT")


def test_the_bundled_spec_agrees_with_the_isa_command(isa_bin, tmp_path):
    import subprocess

    text = "NOP\n@P1 BRA 0x40\nS2R R1, SR_LANEID\nEXIT\n"
    src = tmp_path / "p.s"
    src.write_text(text)
    out = tmp_path / "p.bin"
    subprocess.run([isa_bin, "asm", str(src), "-o", str(out)], check=True)
    prog = gpuisa.assemble(text)
    assert prog.to_bytes() == out.read_bytes()
    listing = subprocess.run(
        [isa_bin, "disasm", str(out)], check=True, capture_output=True, text=True
    ).stdout
    assert gpuisa.disassemble(out.read_bytes()) == listing
    assert gpuisa.disassemble(prog.words) == listing


def test_spec_load_errors(tmp_path):
    with pytest.raises(gpuisa.SpecError) as e:
        gpuisa.Spec.load(tmp_path / "missing")
    assert str(e.value).count("missing") == 1, str(e.value)
    bad = tmp_path / "bad.isa"
    bad.write_text("__DefOpcode X: [NOPE]\n")
    with pytest.raises(gpuisa.SpecError) as e:
        gpuisa.Spec.load(str(bad))
    assert "bad.isa" in str(e.value) and "error" in str(e.value)
    with pytest.raises(gpuisa.SpecError):
        gpuisa.Spec.load([])
    with pytest.raises(gpuisa.SpecError):
        gpuisa.Spec.load(42)


def test_a_loaded_spec_decodes_records_and_disassembles(root):
    vec = gpuisa.Spec.load([root / "tests" / "specs" / "vec"])
    words = [vec.encode("VALU.ADD V1, V2, V3"), vec.encode("VMOV V1, V2")]
    data = b"".join(w.to_bytes(16, "little") for w in words)
    assert [str(i) for i in vec.decode_bytes(data)] == ["VALU.ADD V1, V2, V3", "VMOV V1, V2"]
    assert vec.disassemble(data) == "/*0000*/  VALU.ADD V1, V2, V3 ;\n/*0010*/  VMOV V1, V2 ;\n"
    prog = vec.assemble("VALU.ADD V1, V2, V3\nVMOV V1, V2\n")
    assert prog.words == words and [str(i) for i in prog.instructions()][1] == "VMOV V1, V2"
