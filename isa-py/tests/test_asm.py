"""Whole programs: labels, directives, objects, and every error located."""

import subprocess

import gpuisa
import pytest

PROG = """\
.global main
.extern helper
main:
        BSSY B0, `(.L_join)
        @P0 BRA `(.L_join)
        CALL.REL RZ, `(helper)
.L_join:
        BSYNC B0
        EXIT
"""


def test_a_program_with_labels_and_symbols_assembles_to_an_object(isa_bin, tmp_path):
    p = gpuisa.assemble(PROG, object=True)
    assert len(p) == 5 and p.base == 0 and p.addresses == [0, 16, 32, 48, 64]
    assert p.labels == {"main": 0, ".L_join": 48}
    assert p.globals == ["main"] and p.externs == ["helper"]
    (r,) = p.relocations
    assert (r["address"], r["symbol"], r["absolute"]) == (32, "helper", False)
    assert [str(i) for i in p.instructions()][-1] == "EXIT"
    src = tmp_path / "p.s"
    src.write_text(PROG)
    subprocess.run([isa_bin, "asm", str(src), "-o", str(tmp_path / "p.o")], check=True)
    assert p.to_object() == (tmp_path / "p.o").read_bytes()
    listing = gpuisa.disassemble(p.to_object())
    assert "helper" in listing and ".global main" in listing
    assert "<gpuisa.Program 5 instructions" in repr(p)


def test_an_external_reference_outside_an_object_is_an_error():
    with pytest.raises(gpuisa.AsmError) as e:
        gpuisa.assemble(PROG)
    assert e.value.line == 6 and "only an object file" in e.value.message


def test_every_error_of_a_program_is_listed_in_line_order():
    text = "NOP\nBOGUS R1\n.global nowhere\nEXIT\nBRA `(.L_missing)\n"
    with pytest.raises(gpuisa.AsmError) as e:
        gpuisa.assemble(text)
    lines = [l for l, _, _ in e.value.errors]
    assert lines == sorted(lines) and lines[0] == 2 and len(lines) == 3
    assert e.value.line == 2 and e.value.column == 1
    assert str(e.value).splitlines()[0] == "2:1: " + e.value.message


def test_disassembly_of_undecodable_words_is_lenient_unless_strict():
    words = [gpuisa.encode("NOP"), 1]
    text = gpuisa.disassemble(words)
    assert "NOP" in text and ".word" in text
    with pytest.raises(gpuisa.DecodeError):
        gpuisa.disassemble(words, strict=True)
    with pytest.raises(gpuisa.IsaError):
        gpuisa.disassemble("not words")
    assert gpuisa.disassemble(bytearray(gpuisa.encode("EXIT").to_bytes(16, "little")), 0x40).startswith("/*0040*/")
