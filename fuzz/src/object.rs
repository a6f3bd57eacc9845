//! Oracle of the `object` target: the object reader and the linker (`isa-object`) on
//! arbitrary bytes.
//!
//! Reading never panics, and what it says stays proportional to the input: an error
//! is one bounded message; an object that reads holds names adding up to at most four
//! times the input. An object that reads writes back, and what is written reads and
//! writes again to the same bytes (nothing valid is lost on the way). Linking it
//! (every symbol resolved, or none) never panics, gives one word per instruction or
//! at most one error per relocation, each bounded.

/// Longest message allowed: a name is shortened to `SHOWN_NAME_BYTES` in messages.
const MAX_MESSAGE: usize = isa_object::SHOWN_NAME_BYTES + 512;

pub fn check(data: &[u8]) {
    let obj = match isa_object::read(data) {
        Ok(obj) => obj,
        Err(e) => {
            assert!(e.to_string().len() <= MAX_MESSAGE, "unbounded error: {e}");
            return;
        }
    };
    let names: usize = obj.symbols.iter().map(|s| s.name.len()).sum();
    assert!(
        names <= 4 * data.len(),
        "{names} bytes of names from {}",
        data.len()
    );
    let bytes = isa_object::write(&obj).expect("an object that reads writes");
    let again = isa_object::read(&bytes).expect("a written object reads");
    assert_eq!(again.text, obj.text);
    assert_eq!(again.relocs.len(), obj.relocs.len());
    assert_eq!(
        isa_object::write(&again).unwrap(),
        bytes,
        "write(read(write(obj)))"
    );

    for resolved in [true, false] {
        match obj.link(0x1000, |_| resolved.then_some(0x8000)) {
            Ok(words) => assert_eq!(words.len() * 16, obj.text.len()),
            Err(errors) => {
                assert!(!errors.is_empty() && errors.len() <= obj.relocs.len().max(1));
                for e in errors {
                    assert!(e.to_string().len() <= MAX_MESSAGE, "unbounded error: {e}");
                }
            }
        }
    }
}
