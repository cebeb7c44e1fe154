//! What the benchmarks share: the simulator started as its own process (so its CPU and memory are not the
//! measured process's), optionally pinned to a core.

#![allow(dead_code, reason = "each benchmark uses a different subset")]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A simulator process, stopped when dropped.
pub struct Simulator {
    pub child: Child,
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
}

impl Drop for Simulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `program` run under `taskset -c core` when `core` is given and taskset exists.
fn pinned(core: Option<&str>, program: &str) -> Command {
    match core {
        Some(core) if Command::new("taskset").arg("--version").output().is_ok() => {
            let mut c = Command::new("taskset");
            c.args(["-c", core, program]);
            c
        }
        _ => Command::new(program),
    }
}

/// Starts `latency-guard sim --port 0 ARGS…` and waits for the address it prints.
pub fn simulator(core: Option<&str>, args: &[&str]) -> Simulator {
    let mut child = pinned(core, env!("CARGO_BIN_EXE_latency-guard"))
        .args(["sim", "--port", "0"])
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .spawn()
        .expect("the simulator starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped")).read_line(&mut line).expect("it prints its address");
    let base_url = line.trim().rsplit(' ').next().unwrap_or_default().to_string();
    Simulator { child, base_url }
}

/// `VmRSS` and `VmHWM` of process `pid`, MiB; `None` once it is gone.
pub fn memory_mib(pid: u32) -> Option<(f64, f64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<f64> {
        let kib: f64 =
            status.lines().find_map(|l| l.strip_prefix(name)?.trim().strip_suffix(" kB")?.trim().parse().ok())?;
        Some(kib / 1024.0)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}
