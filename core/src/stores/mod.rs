//! Shared stores: where the state a fleet of instances must share lives when one process's
//! memory is not enough. Each kind of state has its interface beside the code that uses it
//! (tasks: [`crate::tasks::TaskStore`]); the in-memory implementations there are the embedded
//! default, and this module holds the networked ones. A store failure is an error the request
//! sees (never a panic), and the server keeps serving and recovers when the store returns.

pub mod redis;
