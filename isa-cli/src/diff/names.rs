//! One model's items by name, and its enumeration values by name and by code, built
//! once. The diff matches every item of OLD with its namesake in NEW; scanning NEW for
//! each made it quadratic (a 100,000-value enumeration took 39 s against itself).

use std::collections::HashMap;

use isa_gen::model::{EnumValue, Model, OperandWord, TypeId};

use crate::doc::text::value_text;

/// `items` by `name`, the first of each name (a checked spec has no duplicates; the
/// first is what a scan would find).
pub fn by_name<'a, T>(items: &'a [T], name: impl Fn(&'a T) -> &'a str) -> HashMap<&'a str, &'a T> {
    let mut m = HashMap::with_capacity(items.len());
    for it in items {
        m.entry(name(it)).or_insert(it);
    }
    m
}

pub struct Names<'m> {
    pub model: &'m Model,
    types: HashMap<&'m str, TypeId>,
    opcodes: HashMap<&'m str, usize>,
    pub words: HashMap<&'m str, &'m OperandWord>,
    /// Per type (by `TypeId`): its enumeration values (empty for other kinds).
    values: Vec<Values<'m>>,
}

pub struct Values<'m> {
    pub by_name: HashMap<&'m str, &'m EnumValue>,
    pub by_code: HashMap<u128, &'m EnumValue>,
}

impl<'m> Names<'m> {
    pub fn new(model: &'m Model) -> Names<'m> {
        let mut types = HashMap::with_capacity(model.types.len());
        for (i, t) in model.types.iter().enumerate() {
            types.entry(t.name.as_str()).or_insert(TypeId(i));
        }
        let mut opcodes = HashMap::with_capacity(model.opcodes.len());
        for (i, o) in model.opcodes.iter().enumerate() {
            opcodes.entry(o.name.as_str()).or_insert(i);
        }
        let values = model
            .types
            .iter()
            .map(|t| {
                let vs = t.enum_values().unwrap_or_default();
                let mut by_code = HashMap::with_capacity(vs.len());
                for v in vs {
                    by_code.entry(v.code).or_insert(v);
                }
                Values {
                    by_name: by_name(vs, |v| &v.name),
                    by_code,
                }
            })
            .collect();
        Names {
            model,
            types,
            opcodes,
            words: by_name(&model.words, |w| &w.name),
            values,
        }
    }

    pub fn type_id(&self, name: &str) -> Option<TypeId> {
        self.types.get(name).copied()
    }

    pub fn opcode(&self, name: &str) -> Option<usize> {
        self.opcodes.get(name).copied()
    }

    pub fn values(&self, t: TypeId) -> &Values<'m> {
        &self.values[t.0]
    }

    /// [`value_text`], an enumeration's value found by its code in the map.
    pub fn value_text(&self, t: TypeId, code: u128) -> String {
        match self.values(t).by_code.get(&code) {
            Some(v) => v.name.clone(),
            None => value_text(self.model.ty(t), code),
        }
    }

    /// `Type::enum_code`, by the map.
    pub fn enum_code(&self, t: TypeId, name: &str) -> Option<u128> {
        self.values(t).by_name.get(name).map(|v| v.code)
    }
}
