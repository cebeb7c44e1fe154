//! The one progress printer of the measuring commands, on stderr (stdout stays machine-readable): on a terminal a
//! redrawn bar, otherwise a line per tenth, or nothing where a command prints its own lines (a capacity level).

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// Where the progress goes when stderr is not a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piped {
    /// A line per tenth (a CI log of a long run).
    Tenths,
    /// Nothing: the command prints a line per step itself.
    Silent,
}

/// The progress of one run.
pub struct Progress {
    total: u64,
    /// A time limit, s: progress is then the time passed, not the requests done (the total is only a cap).
    limit_s: Option<f64>,
    done: u64,
    errors: u64,
    started: Instant,
    terminal: bool,
    piped: Piped,
    last_tenth: u64,
}

impl Progress {
    /// Progress of `total` requests (or of `limit_s` seconds).
    pub fn new(total: u64, limit_s: Option<f64>, piped: Piped) -> Self {
        Self {
            total,
            limit_s,
            done: 0,
            errors: 0,
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            piped,
            last_tenth: 0,
        }
    }

    /// Counts a batch of finished requests and prints.
    pub fn add(&mut self, done: u64, errors: u64) {
        self.done += done;
        self.errors += errors;
        self.print();
    }

    /// Takes the counts of a run followed elsewhere (on a server) and prints.
    pub fn set(&mut self, done: u64, errors: u64) {
        self.done = done;
        self.errors = errors;
        self.print();
    }

    fn print(&mut self) {
        if self.done == 0 || (!self.terminal && self.piped == Piped::Silent) {
            return;
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        // Progress in thousandths: of the requests, or of the time limit.
        let (share, line) = match self.limit_s {
            Some(limit) => (
                ((elapsed / limit).min(1.0) * 1000.0) as u64,
                format!("{} done, {} failed, {elapsed:.1}s of {limit}s", self.done, self.errors),
            ),
            None => {
                let eta = elapsed / self.done as f64 * self.total.saturating_sub(self.done) as f64;
                (
                    self.done * 1000 / self.total.max(1),
                    format!(
                        "{}/{} done, {} failed, {elapsed:.1}s elapsed, ~{eta:.1}s left",
                        self.done, self.total, self.errors
                    ),
                )
            }
        };
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let filled = (share * 30 / 1000).min(30) as usize;
            let _ = write!(err, "\r[{}{}] {line}   ", "#".repeat(filled), ".".repeat(30 - filled));
            let _ = err.flush();
        } else if share / 100 > self.last_tenth || self.done == self.total {
            self.last_tenth = share / 100;
            let _ = writeln!(err, "{line}");
        }
    }

    /// Ends the redrawn line, so what follows starts on its own.
    pub fn finish(&self) {
        if self.terminal && self.done > 0 {
            eprintln!();
        }
    }
}
