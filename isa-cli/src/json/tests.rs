use serde_json::Value;

use super::validate::Validator;
use super::{document, SCHEMA, SCHEMA_VERSION};
use isa_gen::model::Role;

fn bundled() -> isa_gen::Checked {
    let checked = isa_gen::Spec::load(&[isa_spec::DIR])
        .expect("bundled spec loads")
        .check();
    assert!(!checked.has_errors(), "{}", checked.render_diagnostics());
    checked
}

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("isa.schema.json is JSON")
}

#[test]
fn output_validates_against_the_schema() {
    let checked = bundled();
    let doc = document(&checked).expect("a model");
    // Through text, as a reader gets it.
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    let schema = schema();
    let v = Validator::new(&schema).expect("the schema uses only supported keywords");
    let errs = v.validate(&parsed);
    assert!(
        errs.is_empty(),
        "{} violations:\n{}",
        errs.len(),
        errs[..errs.len().min(20)].join("\n")
    );
    assert_eq!(parsed["schema_version"], SCHEMA_VERSION);
    assert_eq!(
        schema["properties"]["schema_version"]["const"],
        SCHEMA_VERSION
    );
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let checked = bundled();
    let doc = document(&checked).unwrap();
    let schema = schema();
    let v = Validator::new(&schema).unwrap();
    type Mutation = Box<dyn Fn(&mut Value)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "missing member",
            Box::new(|d| {
                d["opcodes"][0]["fields"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("width");
            }),
        ),
        (
            "extra member",
            Box::new(|d| {
                d["opcodes"][3]["extra"] = Value::Bool(true);
            }),
        ),
        (
            "wrong type",
            Box::new(|d| d["opcodes"][1]["fields"][2]["start"] = "12".into()),
        ),
        (
            "bad enum",
            Box::new(|d| d["opcodes"][1]["fields"][0]["role"] = "fixd".into()),
        ),
        ("bad version", Box::new(|d| d["schema_version"] = 1.into())),
        (
            "out of range",
            Box::new(|d| d["opcodes"][1]["fields"][0]["start"] = 128.into()),
        ),
        (
            "bad expression",
            Box::new(|d| {
                d["opcodes"][0]["bitwidths"][0]["expr"] = serde_json::json!({"op": "int"});
            }),
        ),
        (
            "bad type kind",
            Box::new(|d| d["types"][0]["kind"] = "enumeration".into()),
        ),
    ];
    for (what, mutate) in mutations {
        let mut d = doc.clone();
        mutate(&mut d);
        assert!(!v.validate(&d).is_empty(), "{what}: accepted");
    }
    // A schema keyword the validator does not implement is refused, not ignored.
    let mut s = schema.clone();
    s["$defs"]["hex128"]["pattern"] = "^0x[0-9a-f]{32}$".into();
    assert!(Validator::new(&s).is_err());
}

/// The JSON carries every opcode's complete field list: compared with the isa-gen model
/// and with the generated crate's metadata (`isa::Opcode::ALL`).
#[test]
fn every_opcode_round_trips_with_all_its_fields() {
    let checked = bundled();
    let model = checked.model.as_ref().unwrap();
    let text = serde_json::to_string(&document(&checked).unwrap()).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let ops = doc["opcodes"].as_array().unwrap();
    assert_eq!(ops.len(), model.opcodes.len());
    assert_eq!(ops.len(), isa::Opcode::ALL.len());
    let hex =
        |v: &Value| u128::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    for ((op, j), gen) in model.opcodes.iter().zip(ops).zip(isa::Opcode::ALL) {
        let info = gen.info();
        assert_eq!(j["name"], op.name.as_str());
        assert_eq!(info.name, op.name);
        let fields = j["fields"].as_array().unwrap();
        assert_eq!(fields.len(), op.fields.len(), "{}", op.name);
        assert_eq!(fields.len(), info.fields.len(), "{}", op.name);
        let mut covered = 0u128;
        let mut fixed = (0u128, 0u128);
        for ((f, jf), gf) in op.fields.iter().zip(fields).zip(info.fields) {
            let t = model.ty(f.ty);
            assert_eq!(jf["name"], f.name.as_str());
            assert_eq!(jf["start"], f.start);
            assert_eq!(jf["width"], f.width);
            assert_eq!(jf["type"], t.name.as_str());
            assert_eq!(jf["origin"], model.def(f.origin).name.as_str());
            assert_eq!(
                (gf.name, gf.start, gf.width, gf.type_name),
                (
                    jf["name"].as_str().unwrap(),
                    jf["start"].as_u64().unwrap() as u32,
                    jf["width"].as_u64().unwrap() as u32,
                    jf["type"].as_str().unwrap(),
                )
            );
            assert_eq!(
                jf["default"]["code"].as_u64().map(u128::from),
                f.default,
                "{}.{}",
                op.name,
                f.name
            );
            assert_eq!(gf.default, f.default);
            match f.role {
                Role::Fixed(c) => {
                    assert_eq!(jf["role"], "fixed");
                    assert_eq!(jf["fixed"]["code"].as_u64().map(u128::from), Some(c));
                    fixed.0 |= f.mask();
                    fixed.1 |= c << f.start;
                }
                Role::Operand => assert_eq!(jf["role"], "operand"),
                Role::Modifier => assert_eq!(jf["role"], "modifier"),
                Role::SubField(b) => {
                    assert_eq!(jf["role"], "subfield");
                    assert_eq!(jf["attached_to"], op.fields[b].name.as_str());
                }
            }
            let loc = checked.sources.location(f.span);
            assert_eq!(jf["span"]["file"], loc.file.as_str());
            assert_eq!(jf["span"]["line"], loc.line);
            covered |= isa_gen::model::mask(
                jf["start"].as_u64().unwrap() as u32,
                jf["width"].as_u64().unwrap() as u32,
            );
        }
        // The masks the JSON states agree with its own field list.
        assert_eq!(hex(&j["covered"]), covered, "{}", op.name);
        assert_eq!(hex(&j["covered"]), info.field_mask);
        assert_eq!(
            (hex(&j["fixed_mask"]), hex(&j["fixed_bits"])),
            fixed,
            "{}",
            op.name
        );
        assert_eq!(j["operands"].as_array().unwrap().len(), op.order.len());
        assert_eq!(j["operands"].as_array().unwrap().len(), info.order.len());
        assert_eq!(j["in_list"].as_array().unwrap().len(), info.in_list.len());
        assert_eq!(j["out_list"].as_array().unwrap().len(), info.out_list.len());
        assert_eq!(j["bitwidths"].as_array().unwrap().len(), op.bitwidths.len());
        assert_eq!(
            j["exceptions"].as_array().unwrap().len(),
            op.exceptions.len()
        );
        for k in ["fixed_mask", "fixed_bits", "covered"] {
            let s = j[k].as_str().unwrap();
            assert!(
                s.len() == 34
                    && s.starts_with("0x")
                    && s[2..]
                        .bytes()
                        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
                "{s}"
            );
        }
    }
}

#[test]
fn conditional_bit_widths_come_as_text_structure_and_cases() {
    let checked = bundled();
    let doc = document(&checked).unwrap();
    let uldc = doc["opcodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "ULDC_U")
        .expect("ULDC_U");
    let bw = uldc["bitwidths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["operand"] == "urd")
        .unwrap();
    // The width of corrections.isa, which replaces the authors' (it forgets `.128`).
    assert_eq!(
        bw["text"],
        r#"32 + (dtype == "64") * 32 + (dtype == "128") * 96"#
    );
    assert_eq!(bw["expr"]["op"], "+");
    assert_eq!(bw["expr"]["rhs"]["lhs"]["op"], "==");
    assert_eq!(bw["expr"]["rhs"]["lhs"]["rhs"]["name"], "128");
    assert_eq!(bw["expr"]["lhs"]["rhs"]["lhs"]["rhs"]["name"], "64");
    let cases = bw["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 7);
    for (dtype, width) in [("64", 64), ("128", 128)] {
        let c = cases.iter().find(|c| c["when"]["dtype"] == dtype).unwrap();
        assert_eq!(c["width"], width);
    }
    assert!(cases
        .iter()
        .filter(|c| c["when"]["dtype"] != "64" && c["when"]["dtype"] != "128")
        .all(|c| c["width"] == 32));
}

#[test]
fn example_lines_carry_their_encoding_or_the_reason() {
    let checked = bundled();
    let doc = document(&checked).unwrap();
    let (mut ok, mut rejected) = (0, 0);
    for d in doc["definitions"].as_array().unwrap() {
        for s in d["docs"].as_array().unwrap() {
            for b in s["code_blocks"].as_array().unwrap() {
                for l in b["lines"].as_array().unwrap() {
                    match l.get("assembly").and_then(|a| a["status"].as_str()) {
                        Some("assembled") => {
                            ok += 1;
                            // The generated decoder agrees on the opcode.
                            let w = u128::from_str_radix(
                                &l["assembly"]["word"].as_str().unwrap()[2..],
                                16,
                            )
                            .unwrap();
                            let i = isa::Instruction::decode(w).expect("decodes");
                            assert_eq!(
                                i.opcode().name(),
                                l["assembly"]["opcode"].as_str().unwrap()
                            );
                        }
                        Some("rejected") => rejected += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    let ex = checked.examples;
    assert_eq!(ok + rejected, ex.assembled + ex.warned);
    assert_eq!(doc["summary"]["examples_assembled"], ex.assembled);
    assert!(rejected > 0 && ok > 0);
}
