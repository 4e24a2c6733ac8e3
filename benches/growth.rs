//! How chapter 11's cost per statement grows from a 1k-statement program
//! to a 100k-statement one (parse, optimize, null check, global code
//! motion, and dropping the graph, as in the criterion benchmark).
//!
//! On a shared machine the speed drifts by 10 to 25% within minutes, and
//! criterion times the sizes minutes apart, so its ratio of the two moves
//! with the drift. Here the two sizes are timed alternately: each round
//! compiles the 1k program 100 times, then the 100k program once (about
//! the same time), and gives its own ratio. (Ten untimed compiles of the
//! 1k program come first in each round: see `main`.) The median of the rounds'
//! ratios is what this prints, with their range and the median times.
//!
//! ```text
//! MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296 cargo bench --bench growth [-- ROUNDS]
//! ```

use std::hint::black_box;
use std::time::Instant;

#[allow(dead_code)] // the criterion benchmark uses the other shapes
mod programs;
use programs::{compile_schedule, loop_heavy, struct_heavy, Shape};

const SMALL: usize = 1_000;
const LARGE: usize = 100_000;
/// Compiles of the small program per round: about one large compile.
const SMALL_REPEATS: usize = LARGE / SMALL;

/// Microseconds per statement of `repeats` compiles of a program of `n`
/// statements.
fn time_per_statement(src: &str, n: usize, repeats: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..repeats {
        black_box(compile_schedule(black_box(src)));
    }
    start.elapsed().as_secs_f64() * 1e6 / (n * repeats) as f64
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; a number is the count of rounds.
    let rounds = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(15)
        .max(1);
    let shapes: [Shape; 2] = [("loop-heavy", loop_heavy), ("struct-heavy", struct_heavy)];
    println!("chapter 11, {rounds} rounds, per statement (median), 100k/1k (median, range)");
    for (name, generate) in shapes {
        let (small, large) = (generate(SMALL, 11), generate(LARGE, 11));
        // Warm up: the allocator's heap grows to its working size.
        time_per_statement(&small, SMALL, SMALL_REPEATS);
        time_per_statement(&large, LARGE, 1);
        let (mut small_us, mut large_us, mut ratios) = (vec![], vec![], vec![]);
        for _ in 0..rounds {
            // Freeing the large graph leaves the allocator a heap of small
            // free chunks, which it merges on the next large request: a
            // cost of the large program, so it is paid before the timing.
            time_per_statement(&small, SMALL, 10);
            let s = time_per_statement(&small, SMALL, SMALL_REPEATS);
            let l = time_per_statement(&large, LARGE, 1);
            small_us.push(s);
            large_us.push(l);
            ratios.push(l / s);
        }
        let (lo, hi) = ratios
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        println!(
            "{name:>13}: 1k {:.2} us, 100k {:.2} us, ratio {:.2}x ({lo:.2} to {hi:.2})",
            median(&mut small_us),
            median(&mut large_us),
            median(&mut ratios),
        );
    }
}
