use isa_gen::syntax::ast::DocKind;
fn main() {
    let c = isa_gen::Spec::load(&["isa-spec"]).unwrap().check();
    let m = c.model.as_ref().unwrap();
    let a = isa_gen::asm::Assembler::new(m);
    let (mut ok, mut bad) = (0, 0);
    for d in &m.defs {
        for s in d.docs.iter().filter(|s| s.kind == DocKind::Examples) {
            for b in &s.code_blocks {
                for l in &b.lines {
                    let t = isa_gen::asm::lex::strip_comment(&l.text).trim();
                    if t.is_empty() {
                        continue;
                    }
                    match a.parse_line(t, 0, &|_| Some(0x100)) {
                        Ok(dd) => {
                            ok += 1;
                            let p = a.print(&dd, 0);
                            let back = a.parse_line(&p, 0, &|_| None).map(|x| x == dd);
                            println!("OK   {t:50} => {p}   rt={back:?}");
                        }
                        Err(e) => {
                            bad += 1;
                            println!("FAIL {t:50} col {}: {}", e.column(t), e);
                        }
                    }
                }
            }
        }
    }
    println!("{ok} ok, {bad} fail");
}
