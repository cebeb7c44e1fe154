//! Capacity's pages: the sweeps list with the form that starts one (`/sweeps`), a sweep's report
//! (`/sweeps/:id`), and a repeated run compared with another.

mod repeated_panel;
mod sweep_form;
mod sweep_view;
mod sweeps;

pub use sweep_view::SweepPage;
pub use sweeps::SweepsPage;
