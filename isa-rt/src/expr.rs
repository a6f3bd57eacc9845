//! Expressions of field codes (a `Bitwidth` entry: `32 + (dtype == "U64") * 32`), as a
//! postfix sequence of [`Op`]s that [`eval`] reads. Arithmetic saturates, comparisons
//! and `and`/`or`/`not` give 0 or 1, so no input can overflow or fail.

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `or` of two booleans.
    Or,
    /// `and` of two booleans.
    And,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `+`, saturating.
    Add,
    /// `-`, saturating.
    Sub,
    /// `*`, saturating.
    Mul,
}

impl BinOp {
    /// How the spec's expressions write it (`and`, `==`, `+`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "or",
            BinOp::And => "and",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
        }
    }

    /// `a op b`.
    pub fn apply(self, a: i128, b: i128) -> i128 {
        match self {
            BinOp::Or => ((a != 0) || (b != 0)) as i128,
            BinOp::And => ((a != 0) && (b != 0)) as i128,
            BinOp::Eq => (a == b) as i128,
            BinOp::Ne => (a != b) as i128,
            BinOp::Lt => (a < b) as i128,
            BinOp::Le => (a <= b) as i128,
            BinOp::Gt => (a > b) as i128,
            BinOp::Ge => (a >= b) as i128,
            BinOp::Add => a.saturating_add(b),
            BinOp::Sub => a.saturating_sub(b),
            BinOp::Mul => a.saturating_mul(b),
        }
    }
}

/// One step of a postfix expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Pushes a number.
    Int(i128),
    /// Pushes the code of a field (a number of the opcode's fields).
    Field(u16),
    /// Replaces the top with 1 if it is 0, else 0.
    Not,
    /// Negates the top, saturating.
    Neg,
    /// Replaces the two top values `a`, `b` (`b` on top) with `a op b`.
    Bin(BinOp),
}

/// The value of the postfix expression `ops`, with `field(n)` the code of field `n`
/// (codes above `i128::MAX` read as `i128::MAX`). A malformed sequence (an operator
/// short of operands) reads the missing operands as 0.
pub fn eval(ops: &[Op], field: &dyn Fn(u16) -> u128) -> i128 {
    value(ops, ops.len(), field).0
}

/// The value of the expression ending before `end`, and where it starts.
fn value(ops: &[Op], end: usize, field: &dyn Fn(u16) -> u128) -> (i128, usize) {
    let Some(at) = end.checked_sub(1) else {
        return (0, 0);
    };
    match ops[at] {
        Op::Int(v) => (v, at),
        Op::Field(f) => (field(f).min(i128::MAX as u128) as i128, at),
        Op::Not => {
            let (v, s) = value(ops, at, field);
            ((v == 0) as i128, s)
        }
        Op::Neg => {
            let (v, s) = value(ops, at, field);
            (v.saturating_neg(), s)
        }
        Op::Bin(op) => {
            let (b, s) = value(ops, at, field);
            let (a, s) = value(ops, s, field);
            (op.apply(a, b), s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postfix_reads_left_operand_first() {
        // (f0 - 1) * 32 with f0 = 3, and 32 + (f1 == 2) * 32 with f1 = 2.
        let f = |n: u16| [3u128, 2][n as usize];
        let a = [
            Op::Field(0),
            Op::Int(1),
            Op::Bin(BinOp::Sub),
            Op::Int(32),
            Op::Bin(BinOp::Mul),
        ];
        assert_eq!(eval(&a, &f), 64);
        let b = [
            Op::Int(32),
            Op::Field(1),
            Op::Int(2),
            Op::Bin(BinOp::Eq),
            Op::Int(32),
            Op::Bin(BinOp::Mul),
            Op::Bin(BinOp::Add),
        ];
        assert_eq!(eval(&b, &f), 64);
        assert_eq!(eval(&[Op::Int(5), Op::Neg, Op::Not], &f), 0);
        assert_eq!(eval(&[Op::Int(0), Op::Not], &f), 1);
    }

    #[test]
    fn every_operator() {
        use BinOp::*;
        // (op, a, b, a op b) at the edges of each comparison.
        let cases = [
            (Or, 0, 0, 0),
            (Or, 0, 2, 1),
            (Or, 2, 0, 1),
            (And, 2, 3, 1),
            (And, 0, 3, 0),
            (And, 3, 0, 0),
            (Eq, 4, 4, 1),
            (Eq, 4, 5, 0),
            (Ne, 4, 5, 1),
            (Ne, 4, 4, 0),
            (Lt, 4, 5, 1),
            (Lt, 5, 5, 0),
            (Lt, 6, 5, 0),
            (Le, 5, 5, 1),
            (Le, 4, 5, 1),
            (Le, 6, 5, 0),
            (Gt, 6, 5, 1),
            (Gt, 5, 5, 0),
            (Gt, 4, 5, 0),
            (Ge, 5, 5, 1),
            (Ge, 6, 5, 1),
            (Ge, 4, 5, 0),
            (Add, 4, 5, 9),
            (Sub, 4, 5, -1),
            (Mul, 4, 5, 20),
        ];
        let symbols = [Or, And, Eq, Ne, Lt, Le, Gt, Ge, Add, Sub, Mul].map(BinOp::symbol);
        assert_eq!(
            symbols,
            ["or", "and", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*"]
        );
        for (op, a, b, want) in cases {
            assert_eq!(op.apply(a, b), want, "{a} {op:?} {b}");
            let ops = [Op::Int(a), Op::Int(b), Op::Bin(op)];
            assert_eq!(eval(&ops, &|_| 0), want, "{a} {op:?} {b} in postfix");
        }
    }

    #[test]
    fn saturates_and_tolerates_malformed_sequences() {
        let f = |_: u16| u128::MAX;
        assert_eq!(
            eval(&[Op::Field(0), Op::Int(2), Op::Bin(BinOp::Mul)], &f),
            i128::MAX
        );
        assert_eq!(eval(&[Op::Int(i128::MIN), Op::Neg], &f), i128::MAX);
        assert_eq!(eval(&[Op::Bin(BinOp::Sub)], &f), 0);
        assert_eq!(eval(&[], &f), 0);
    }
}
