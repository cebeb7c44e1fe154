//! How the serving process gives freed memory back. glibc's malloc keeps what a burst freed: up to eight arenas a
//! core, and a size above which blocks are mapped on their own that rises each time such a block is freed, so the
//! few hundred MB a heavy run makes and drops (prompts, tokenizer answers) stayed resident after it ended
//! (measured with `cargo bench --bench workload_memory`: 37 → 167 MiB after its steps; 95 MiB with these settings).
//! glibc reads its settings from the environment once, as a process starts, so `serve` sets them and starts itself
//! again in place (the same process id and arguments) when `GLIBC_TUNABLES` is not set; an operator's own
//! `GLIBC_TUNABLES` is kept as it is.

/// The environment variable glibc reads its malloc settings from.
pub const TUNABLES_VAR: &str = "GLIBC_TUNABLES";

/// The settings for a machine of `cores` cores: an arena a core (at least two), and blocks of 128 KiB and more
/// mapped on their own and given back when freed, as is any free memory above 128 KiB at the top of the heap.
pub fn tunables(cores: usize) -> String {
    format!(
        "glibc.malloc.arena_max={}:glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072",
        cores.max(2)
    )
}

/// Starts this process again in place with [`tunables`] set, when they are not set yet; returns only when it does
/// not (already set, not glibc, or the start failed: the server then runs with glibc's defaults, and says so).
pub fn give_memory_back() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) || std::env::var_os(TUNABLES_VAR).is_some() {
        return;
    }
    let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
    let error = match std::env::current_exe() {
        Ok(exe) => {
            use std::os::unix::process::CommandExt;
            std::process::Command::new(exe).args(std::env::args_os().skip(1)).env(TUNABLES_VAR, tunables(cores)).exec()
        }
        Err(e) => e,
    };
    eprintln!("latency-guard: could not restart with {TUNABLES_VAR} set ({error}); freed memory may stay resident");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_a_core_and_large_blocks_given_back() {
        assert_eq!(
            tunables(16),
            "glibc.malloc.arena_max=16:glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072"
        );
        assert!(tunables(1).starts_with("glibc.malloc.arena_max=2:"), "two at least");
    }
}
