//! Ferrite's Python binding. Not written yet: see the issue "The Python package".
