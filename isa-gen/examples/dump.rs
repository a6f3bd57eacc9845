fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (paths, ops): (Vec<_>, Vec<_>) = args
        .iter()
        .partition(|a| a.contains('/') || a.contains('.'));
    let spec = isa_gen::Spec::load(&paths).unwrap();
    let c = spec.check();
    eprint!("{}", c.render_diagnostics());
    let Some(m) = &c.model else { return };
    eprintln!("{:?}", m.summary());
    for name in ops {
        let i = m.opcode_by_name(name).unwrap();
        let o = &m.opcodes[i];
        println!(
            "{} optype={:?} ancestors={:?}",
            o.name,
            o.optype.map(|d| &m.def(d).name),
            o.ancestors
                .iter()
                .map(|d| &m.def(*d).name)
                .collect::<Vec<_>>()
        );
        for f in &o.fields {
            println!(
                "  {:12} <{},{}> {:10} {:?} default={:?}",
                f.name,
                f.start,
                f.width,
                m.ty(f.ty).name,
                f.role,
                f.default
            );
        }
        println!(
            "  order={:?}\n  in={:?} out={:?}\n  bw={:?}\n  asm={:?}\n  exc={:?}",
            o.order.iter().map(|x| x.kind).collect::<Vec<_>>(),
            o.in_list,
            o.out_list,
            o.bitwidths
                .iter()
                .map(|b| (b.field, &b.expr))
                .collect::<Vec<_>>(),
            o.asm_formats,
            o.exceptions
                .iter()
                .map(|e| (&e.message, &e.cond))
                .collect::<Vec<_>>()
        );
        for d in m.opcode_docs(o) {
            println!(
                "  doc {:?}: {} lines, {} blocks",
                d.kind,
                d.text.lines().count(),
                d.code_blocks.len()
            );
        }
    }
}
