//! The ISA description files, as data.
//!
//! The directory holds the ISA authors' files (`sync.isa`, `bru.isa`, `misc.isa`,
//! `udp.isa`, unchanged) and ours: `base.isa`, which defines the types, register files,
//! immediates and root group they reference, `backend.isa` (control flow, register
//! enumerations) and `corrections.isa` (the one answer where the authors' text
//! contradicts itself). See `README.md` for the DSL.
//!
//! This crate knows nothing of the generated API: it only says where the files are and
//! embeds their text, so a `build.rs` or a tool can hand them to `isa-gen`.
#![no_std]

/// The directory holding the spec files.
pub const DIR: &str = env!("CARGO_MANIFEST_DIR");

/// One spec file: its file name and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecFile {
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! files {
    ($($name:literal),* $(,)?) => {
        /// Every spec file, in the order they are checked (by name).
        pub const FILES: &[SpecFile] = &[
            $(SpecFile { name: $name, text: include_str!(concat!("../", $name)) }),*
        ];
    };
}

files!(
    "backend.isa",
    "base.isa",
    "bru.isa",
    "corrections.isa",
    "misc.isa",
    "sync.isa",
    "udp.isa"
);

#[cfg(test)]
mod tests {
    extern crate std;
    use std::string::ToString;
    use std::vec::Vec;

    #[test]
    fn embedded_list_matches_directory() {
        let mut on_disk: Vec<_> = std::fs::read_dir(super::DIR)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.ends_with(".isa").then_some(name)
            })
            .collect();
        on_disk.sort();
        let embedded: Vec<_> = super::FILES.iter().map(|f| f.name.to_string()).collect();
        assert_eq!(
            on_disk, embedded,
            "update the files! list in isa-spec/src/lib.rs"
        );
    }
}
