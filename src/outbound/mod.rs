//! One outbound-address policy for every request the service sends on a user's behalf: model calls, connection
//! tests, probes, scrapes and webhooks. An address is judged after resolution, on every address a name has, and
//! the connection goes to the addresses judged (no second lookup). Knows nothing of workspaces: callers say how
//! far a request may reach.

mod address;
mod lookup;
mod policy;
mod resolver;
mod rules;

pub use address::{internal_kind, InternalKind};
pub use lookup::{Lookup, SystemLookup};
pub use policy::{AddressError, AddressPolicy, Reach, Refusal, Trust};
pub use resolver::GuardedResolver;
pub use rules::{AllowRuleError, AllowRules};
