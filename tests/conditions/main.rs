//! Order conditions from the outside: evaluation allocates nothing (counted by a global
//! allocator, which is why this is its own test binary), and `missing` is derived from `size`
//! and `alive` as docs/engagements.md says.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rollcall::condition::{Condition, Situation};

/// The system allocator, counting allocations made by the current thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the `GlobalAlloc`
// contract; the counter is a const-initialised thread local, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this `layout`, via `alloc` above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// A unit of 10 with 4 left in round 3, one model 2 HP down, the nearest enemy 1.5" away and
/// nothing to shoot.
struct Table;

impl Situation for Table {
    fn alive(&mut self) -> u32 {
        4
    }
    fn size(&mut self) -> u32 {
        10
    }
    fn round(&mut self) -> u32 {
        3
    }
    fn damaged(&mut self) -> u32 {
        2
    }
    fn enemy_within(&mut self, inches: f64) -> bool {
        1.5 <= inches
    }
    fn in_range(&mut self) -> bool {
        false
    }
}

#[test]
fn evaluation_allocates_nothing() {
    let conditions: Vec<Condition> = [
        "missing >= 3 and not enemy_within(1)",
        "in_range or (round > 2 and damaged != 0) or not (alive < 2 or size == 5)",
        "not not not enemy_within(0.5) and missing == 6 and alive <= 4 and 3 < round",
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    let mut table = Table;
    let before = allocations();
    let mut held = 0;
    for _ in 0..1000 {
        for c in &conditions {
            held += u32::from(c.holds(&mut table));
        }
    }
    let after = allocations();
    assert_eq!(after - before, 0);
    // The counter does count: parsing builds a tree.
    let _ = Condition::parse("alive > 1 and in_range").unwrap();
    assert!(allocations() > after);
    // missing = 10 - 4 = 6 >= 3 and no enemy within 1"; round 3 > 2 and damaged 2; and
    // not (1.5 <= 0.5), missing 6, alive 4, 3 < 3 fails.
    assert_eq!(held, 2000);
}

#[test]
fn arithmetic_and_derived_metrics_allocate_nothing() {
    use rollcall::condition::derived::Derived;
    let conditions: Vec<Condition> = [
        "missing * 2 >= size and -alive < 0",
        "min(alive, 3) + max(damaged, round) * 2 - abs(alive - size) == 4",
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    let builtins: Vec<String> = ["blue.alive", "red.alive", "blue.won"]
        .map(String::from)
        .to_vec();
    let entries: Vec<(String, String)> = [
        ("double", "margin * 2"),
        ("margin", "blue.alive - red.alive"),
        (
            "close",
            "abs(margin) <= 1 and not blue.won or max(blue.alive, 3) > 5",
        ),
    ]
    .map(|(n, t)| (n.to_string(), t.to_string()))
    .to_vec();
    let derived = Derived::parse(&entries, &builtins).unwrap();
    let mut row = [5i64, 7, 0, 0, 0, 0];
    let mut table = Table;
    let before = allocations();
    let mut held = 0;
    for i in 0..1000 {
        for c in &conditions {
            held += u32::from(c.holds(&mut table));
        }
        row[0] = i % 9;
        derived.evaluate(&mut row).unwrap();
    }
    assert_eq!(allocations() - before, 0);
    // missing 6 * 2 >= 10 and -4 < 0; min(4, 3) + max(2, 3) * 2 - |4 - 10| = 3 + 6 - 6 = 3.
    assert_eq!(held, 1000);
    // The last row: blue.alive = 999 % 9 = 0, red.alive 7: margin -7, double -14, close 0.
    assert_eq!(row, [0, 7, 0, -14, -7, 0]);
}
