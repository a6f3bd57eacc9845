//! A focused JSON Schema (2020-12) validator for the subset `isa.schema.json`
//! uses: `type`, `properties`, `required`, `additionalProperties`, `items`, `enum`,
//! `const`, `$ref` (to `#/$defs/…`), `oneOf`, `anyOf`, `minimum`, `maximum`, `minItems`,
//! plus the annotations `$schema`, `$id`, `$defs`, `title`, `description`.
//!
//! A schema that uses any other keyword is rejected when the validator is built, so the
//! schema can never rely on a keyword this code would silently ignore. (A full
//! validator crate was measured: `boon` adds about 40 crates — the ICU/IDNA stack via
//! `url` — and 24 s of clean build on two cores, for a test.)

use serde_json::Value;

const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "title",
    "description",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "$ref",
    "oneOf",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
];

pub struct Validator<'s> {
    root: &'s Value,
}

impl<'s> Validator<'s> {
    /// Checks that the schema uses only supported keywords and resolvable `$ref`s.
    pub fn new(root: &'s Value) -> Result<Validator<'s>, String> {
        let v = Validator { root };
        v.check_schema(root, "#")?;
        Ok(v)
    }

    fn check_schema(&self, s: &Value, at: &str) -> Result<(), String> {
        let obj = match s {
            Value::Bool(_) => return Ok(()),
            Value::Object(o) => o,
            _ => return Err(format!("{at}: a schema must be an object or a boolean")),
        };
        for (k, v) in obj {
            if !KEYWORDS.contains(&k.as_str()) {
                return Err(format!("{at}: unsupported keyword `{k}`"));
            }
            match k.as_str() {
                "properties" | "$defs" => {
                    for (name, sub) in v.as_object().ok_or(format!("{at}/{k}: not an object"))? {
                        self.check_schema(sub, &format!("{at}/{k}/{name}"))?;
                    }
                }
                "items" | "additionalProperties" => self.check_schema(v, &format!("{at}/{k}"))?,
                "oneOf" | "anyOf" => {
                    for (i, sub) in v
                        .as_array()
                        .ok_or(format!("{at}/{k}: not an array"))?
                        .iter()
                        .enumerate()
                    {
                        self.check_schema(sub, &format!("{at}/{k}/{i}"))?;
                    }
                }
                "$ref" => {
                    self.resolve(v.as_str().ok_or(format!("{at}/$ref: not a string"))?)?;
                }
                "type" => {
                    let names: Vec<&Value> = match v {
                        Value::Array(a) => a.iter().collect(),
                        x => vec![x],
                    };
                    for n in names {
                        let ok = n.as_str().is_some_and(|n| {
                            matches!(
                                n,
                                "null"
                                    | "boolean"
                                    | "integer"
                                    | "number"
                                    | "string"
                                    | "array"
                                    | "object"
                            )
                        });
                        if !ok {
                            return Err(format!("{at}/type: unknown type {n}"));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn resolve(&self, r: &str) -> Result<&'s Value, String> {
        let name = r.strip_prefix("#/$defs/").ok_or(format!(
            "only `#/$defs/NAME` references are supported, not `{r}`"
        ))?;
        self.root
            .get("$defs")
            .and_then(|d| d.get(name))
            .ok_or(format!("`{r}` does not resolve"))
    }

    /// Every violation, as `path: message`.
    pub fn validate(&self, v: &Value) -> Vec<String> {
        let mut errs = Vec::new();
        self.check(self.root, v, "", &mut errs);
        errs
    }

    fn check(&self, s: &Value, v: &Value, path: &str, errs: &mut Vec<String>) {
        let obj = match s {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                errs.push(format!("{path}: not allowed here"));
                return;
            }
            Value::Object(o) => o,
            _ => return,
        };
        if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
            match self.resolve(r) {
                Ok(t) => self.check(t, v, path, errs),
                Err(e) => errs.push(format!("{path}: {e}")),
            }
        }
        if let Some(t) = obj.get("type") {
            let names: Vec<&str> = match t {
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                x => x.as_str().into_iter().collect(),
            };
            if !names.iter().any(|n| type_matches(n, v)) {
                errs.push(format!(
                    "{path}: expected {}, found {}",
                    names.join(" or "),
                    kind(v)
                ));
                return;
            }
        }
        if let Some(c) = obj.get("const") {
            if c != v {
                errs.push(format!("{path}: expected {c}, found {v}"));
            }
        }
        if let Some(Value::Array(options)) = obj.get("enum") {
            if !options.contains(v) {
                errs.push(format!(
                    "{path}: {v} is not one of {}",
                    Value::Array(options.clone())
                ));
            }
        }
        if let Some(n) = v.as_f64() {
            if let Some(min) = obj.get("minimum").and_then(Value::as_f64) {
                if n < min {
                    errs.push(format!("{path}: {v} is below the minimum {min}"));
                }
            }
            if let Some(max) = obj.get("maximum").and_then(Value::as_f64) {
                if n > max {
                    errs.push(format!("{path}: {v} is above the maximum {max}"));
                }
            }
        }
        if let Value::Array(items) = v {
            if let Some(min) = obj.get("minItems").and_then(Value::as_u64) {
                if (items.len() as u64) < min {
                    errs.push(format!("{path}: fewer than {min} items"));
                }
            }
            if let Some(item_schema) = obj.get("items") {
                for (i, item) in items.iter().enumerate() {
                    self.check(item_schema, item, &format!("{path}/{i}"), errs);
                }
            }
        }
        if let Value::Object(members) = v {
            let props = obj.get("properties").and_then(Value::as_object);
            if let Some(Value::Array(req)) = obj.get("required") {
                for r in req.iter().filter_map(Value::as_str) {
                    if !members.contains_key(r) {
                        errs.push(format!("{path}: missing member `{r}`"));
                    }
                }
            }
            for (k, mv) in members {
                let sub = format!("{path}/{k}");
                match props.and_then(|p| p.get(k)) {
                    Some(ps) => self.check(ps, mv, &sub, errs),
                    None => {
                        if let Some(ap) = obj.get("additionalProperties") {
                            self.check(ap, mv, &sub, errs);
                        }
                    }
                }
            }
        }
        for (key, exactly_one) in [("oneOf", true), ("anyOf", false)] {
            if let Some(Value::Array(options)) = obj.get(key) {
                let mut failures = Vec::new();
                let mut matched = 0;
                for o in options {
                    let mut e = Vec::new();
                    self.check(o, v, path, &mut e);
                    if e.is_empty() {
                        matched += 1;
                    } else {
                        failures.push(e.join("; "));
                    }
                }
                if matched == 0 {
                    errs.push(format!(
                        "{path}: matches none of the {key} alternatives ({})",
                        failures.join(" | ")
                    ));
                } else if exactly_one && matched > 1 {
                    errs.push(format!(
                        "{path}: matches {matched} oneOf alternatives, not one"
                    ));
                }
            }
        }
    }
}

fn type_matches(name: &str, v: &Value) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
