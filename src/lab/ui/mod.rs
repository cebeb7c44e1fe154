//! Spec Lab's pages: `/spec-lab` (the probe of a connector's server and the A/B tests with the form that starts
//! one) and an A/B test's report (`/spec-lab/ab/:id`); the probe panel is also shown on a connector's page.

mod ab_form;
mod ab_test;
mod probe_panel;
mod spec_lab;

pub use ab_test::AbTestPage;
pub use probe_panel::ServerProbe;
pub use spec_lab::SpecLabPage;
