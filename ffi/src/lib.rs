//! Ferrite's C ABI. Not written yet: see the issue "The stable C ABI". This crate exists so
//! the workspace has its final shape.
