//! Ferrite's Node binding. Not written yet: see the issue "The Node package".
