//! The home page (`/`, where a login lands).

mod home;

pub use home::HomePage;
