"""The GPU ISA toolchain from Python: encode, decode, assemble, disassemble and simulate.

Every operation runs the Rust code the `isa` command runs, so results are what
`isa asm`, `isa disasm` and `isa run` print. Words are Python ints (128 bits);
records are 16-byte little-endian `bytes`.
"""

import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union, overload

__version__: str
DEFAULT_MAX_STEPS: int

class IsaError(ValueError):
    """Base of the toolchain's errors on bad input."""

    message: str

class DecodeError(IsaError):
    """A word (or record) that does not decode."""

    word: Optional[int]
    offset: Optional[int]

class AsmError(IsaError):
    """Assembly text that does not assemble; `line`/`column` (1-based) of the first error."""

    line: int
    column: int
    errors: List[Tuple[int, int, str]]

class SpecError(IsaError):
    """A spec that cannot be read or has errors."""

class StateError(IsaError):
    """A state the simulator cannot load; `path` is the JSON path (`$.gpr.R0`)."""

    path: Optional[str]

class Fault(RuntimeError):
    """A runtime fault of the simulator (step limit, livelock, jump outside the program, …)."""

    message: str
    kind: str
    pc: int
    line: Optional[int]

_Words = Union[bytes, bytearray, Sequence[int]]
_Path = Union[str, "os.PathLike[str]"]

class Operand:
    """A register operand of an instruction, as the instruction uses it."""

    name: str
    file: str
    registers: List[str]
    access: str
    reads: bool
    writes: bool
    guard: bool
    index: bool
    constant: bool

class Instruction:
    """One decoded instruction; `str()` is its disassembly."""

    @property
    def word(self) -> int: ...
    @property
    def address(self) -> int: ...
    @property
    def opcode(self) -> str: ...
    @property
    def mnemonic(self) -> str: ...
    @property
    def fields(self) -> Dict[str, Union[int, str]]: ...
    @property
    def codes(self) -> Dict[str, int]: ...
    @property
    def operands(self) -> List[Operand]: ...
    @property
    def flow(self) -> Optional[str]: ...
    @property
    def conditional(self) -> bool: ...
    @property
    def target(self) -> Optional[int]: ...
    def __int__(self) -> int: ...

class Instructions(Sequence[Optional[Instruction]]):
    """The instructions of a buffer of records; items are made when read."""

    @property
    def words(self) -> List[int]: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, k: int) -> Optional[Instruction]: ...
    @overload
    def __getitem__(self, k: slice) -> List[Optional[Instruction]]: ...  # type: ignore[override]

class Program:
    """An assembled program."""

    @property
    def base(self) -> int: ...
    @property
    def words(self) -> List[int]: ...
    @property
    def addresses(self) -> List[int]: ...
    @property
    def labels(self) -> Dict[str, int]: ...
    @property
    def globals(self) -> List[str]: ...
    @property
    def externs(self) -> List[str]: ...
    @property
    def relocations(self) -> List[Dict[str, Any]]: ...
    def instructions(self) -> List[Instruction]: ...
    def to_bytes(self) -> bytes: ...
    def to_object(self) -> bytes: ...
    def __len__(self) -> int: ...

class Spec:
    """An instruction set: the bundled one, or one read from spec files."""

    @staticmethod
    def bundled() -> "Spec": ...
    @staticmethod
    def load(paths: Union[_Path, Sequence[_Path]]) -> "Spec": ...
    @property
    def origin(self) -> str: ...
    @property
    def opcodes(self) -> List[str]: ...
    def decode(self, word: int, address: int = 0) -> Instruction: ...
    def decode_bytes(
        self, data: Union[bytes, bytearray, memoryview], address: int = 0, strict: bool = True
    ) -> Instructions: ...
    def encode(self, text: str, address: int = 0) -> int: ...
    def assemble(self, text: str, object: bool = False) -> Program: ...
    def disassemble(self, data: _Words, address: int = 0, strict: bool = False) -> str: ...

def decode(word: int, address: int = 0) -> Instruction: ...
def decode_bytes(
    data: Union[bytes, bytearray, memoryview], address: int = 0, strict: bool = True
) -> Instructions: ...
def encode(text: str, address: int = 0) -> int: ...
def assemble(text: str, object: bool = False) -> Program: ...
def disassemble(data: _Words, address: int = 0, strict: bool = False) -> str: ...

class Step:
    """One executed instruction, as `isa run --trace` writes it."""

    number: int
    pc: int
    cycle: int
    active_mask: int
    valid_mask: int
    guard: int
    text: str
    @property
    def instruction(self) -> Instruction: ...
    @property
    def record(self) -> Dict[str, Any]: ...
    @property
    def writes(self) -> Dict[str, Any]: ...
    @property
    def event(self) -> Optional[Dict[str, Any]]: ...

class RunResult:
    """How a run ended; true when every valid lane exited."""

    exited: bool
    steps: int
    fault: Optional[Fault]
    def __bool__(self) -> bool: ...

class Machine:
    """A warp of 32 lanes running a program of the bundled spec on the simulator."""

    def __init__(
        self,
        program: Union[str, Program, _Words],
        state: Union[Dict[str, Any], str, None] = None,
        *,
        base: Optional[int] = None,
    ) -> None: ...
    def step(self) -> Optional[Step]: ...
    def run(
        self,
        max_steps: int = 10_000_000,
        observer: Optional[Callable[[Step], Any]] = None,
    ) -> RunResult: ...
    def state(self) -> Dict[str, Any]: ...
    @property
    def exited(self) -> bool: ...
    @property
    def steps(self) -> int: ...
    @property
    def pc(self) -> int: ...
    @property
    def cycles(self) -> int: ...
    valid_mask: int
    active_mask: int
    yield_mask: int
    sleep_mask: int
    switch_mask: int
    def reg(self, n: int, lane: Optional[int] = None) -> Any: ...
    def set_reg(self, n: int, value: Union[int, Sequence[int]], lane: Optional[int] = None) -> None: ...
    def pred(self, n: int, lane: Optional[int] = None) -> Any: ...
    def set_pred(self, n: int, value: Union[bool, Sequence[bool]], lane: Optional[int] = None) -> None: ...
    def ureg(self, n: int) -> int: ...
    def set_ureg(self, n: int, value: int) -> None: ...
    def upred(self, n: int) -> bool: ...
    def set_upred(self, n: int, value: bool) -> None: ...
    def breg(self, n: int) -> int: ...
    def set_breg(self, n: int, value: int) -> None: ...
    def cmem(self, bank: int, addr: int) -> int: ...
    def set_cmem(self, bank: int, addr: int, value: int) -> None: ...
