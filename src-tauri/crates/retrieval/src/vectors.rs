//! Passage vectors as stored and compared: the model server's embeddings made unit length and
//! quantized to one signed byte per dimension with one scale per vector, the cosine of two such
//! vectors, and the best `k` of a scan.
//!
//! A passage's vector takes `dim` bytes plus a 4-byte scale: 576 + 4 = 580 bytes for a 576-wide
//! model (SmolLM2-135M), 1,028 bytes for a 1,024-wide one (bge-m3), a quarter of its `f32`s.
//! Rounding to 127 steps moves a cosine by about 0.01, far less than what separates a passage
//! about the question from one that is not.
//!
//! The scan is exact and brute force: every vector in the turn's scope is compared. Measured on
//! a shared 2-core machine, release build, 576 dimensions, 200,000 vectors:
//! - comparing alone (`tests::scan_timing`, no target-specific SIMD): 55–58 ms, 0.28 µs a vector;
//! - reading them out of SQLite as a search does (`maru_store::passage_vectors`'
//!   `scan_through_sqlite`): 340–450 ms, about 2 µs a vector, reading the rows being most of it.
//!
//! The time grows with passages × dimensions. So the scan stays within 50 ms to about 25,000
//! passages in one chat's scope and within half a second to about 200,000 (less than a reply
//! takes, but felt); past that, or sooner with 4,096-wide models, the next step is a copy of the
//! vectors kept in memory (the comparing alone is 8 times faster) or an approximate index (HNSW,
//! IVF), at the price of answers that are no longer exact.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A vector at unit length, as `values * scale` (each value in -127..=127).
#[derive(Debug, Clone, PartialEq)]
pub struct Quantized {
    pub scale: f32,
    pub values: Vec<i8>,
}

/// `v` made unit length and quantized; `None` for an empty, all-zero or non-finite vector (a
/// server's broken answer, which must not match anything).
pub fn quantize(v: &[f32]) -> Option<Quantized> {
    if v.is_empty() || v.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm == 0.0 {
        return None;
    }
    let largest = v.iter().map(|x| (f64::from(*x) / norm).abs()).fold(0.0, f64::max);
    let step = largest / 127.0;
    let values = v.iter().map(|x| (f64::from(*x) / norm / step).round().clamp(-127.0, 127.0) as i8).collect();
    Some(Quantized { scale: step as f32, values })
}

impl Quantized {
    /// The values as stored (one byte each).
    pub fn bytes(&self) -> Vec<u8> {
        self.values.iter().map(|v| *v as u8).collect()
    }

    /// A stored vector: its scale and its bytes.
    pub fn from_bytes(scale: f32, bytes: &[u8]) -> Quantized {
        Quantized { scale, values: bytes.iter().map(|b| *b as i8).collect() }
    }

    /// The cosine with a stored vector (`scale`, `bytes`); `None` when their widths differ (the
    /// vectors come from different models).
    pub fn cosine(&self, scale: f32, bytes: &[u8]) -> Option<f32> {
        (bytes.len() == self.values.len()).then(|| dot(&self.values, bytes) as f32 * self.scale * scale)
    }
}

/// The dot product of a query's values and a stored vector's bytes. Written as plain loops over
/// fixed-size blocks so the compiler turns them into SIMD: this is the whole cost of a scan.
pub fn dot(a: &[i8], b: &[u8]) -> i32 {
    const LANES: usize = 16;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    // One running sum per lane, added up at the end: the loop then has no dependency between
    // lanes. 127 × 127 × (4096 / 16) fits an i32 many times over.
    let mut lanes = [0i32; LANES];
    let mut blocks_a = a.chunks_exact(LANES);
    let mut blocks_b = b.chunks_exact(LANES);
    for (x, y) in (&mut blocks_a).zip(&mut blocks_b) {
        for i in 0..LANES {
            lanes[i] += i32::from(x[i]) * i32::from(y[i] as i8);
        }
    }
    let mut sum: i32 = lanes.iter().sum();
    for (x, y) in blocks_a.remainder().iter().zip(blocks_b.remainder()) {
        sum += i32::from(*x) * i32::from(*y as i8);
    }
    sum
}

/// The `k` best-scored items of a scan, best first; ties keep the order they came in.
pub struct TopK<T> {
    k: usize,
    seen: u64,
    /// The worst of the kept on top, so that a better item replaces it.
    heap: BinaryHeap<Scored<T>>,
}

struct Scored<T> {
    score: f32,
    order: u64,
    item: T,
}

impl<T> PartialEq for Scored<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<T> Eq for Scored<T> {}
impl<T> PartialOrd for Scored<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Scored<T> {
    /// "Greater" is worse: a lower score, or a later arrival at the same score.
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.total_cmp(&self.score).then(self.order.cmp(&other.order))
    }
}

impl<T> TopK<T> {
    pub fn new(k: usize) -> TopK<T> {
        TopK { k, seen: 0, heap: BinaryHeap::with_capacity(k + 1) }
    }

    pub fn push(&mut self, score: f32, item: T) {
        let order = self.seen;
        self.seen += 1;
        if self.k == 0 || score.is_nan() {
            return;
        }
        if self.heap.len() == self.k {
            match self.heap.peek() {
                Some(worst) if worst.score < score => {
                    self.heap.pop();
                }
                _ => return,
            }
        }
        self.heap.push(Scored { score, order, item });
    }

    /// The kept items with their scores, best first.
    pub fn into_sorted(self) -> Vec<(T, f32)> {
        self.heap.into_sorted_vec().into_iter().map(|s| (s.item, s.score)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact_cosine(a: &[f32], b: &[f32]) -> f32 {
        let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        dot / (norm(a) * norm(b))
    }

    /// A small deterministic generator: the tests need no random crate and repeat exactly.
    fn numbers(seed: u64) -> impl FnMut() -> f32 {
        let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        move || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        }
    }

    fn random_vector(dim: usize, seed: u64) -> Vec<f32> {
        let mut next = numbers(seed);
        (0..dim).map(|_| next()).collect()
    }

    #[test]
    fn quantized_cosines_stay_close_to_the_exact_ones() {
        for seed in 0..50 {
            let (a, b) = (random_vector(384, seed), random_vector(384, seed + 1000));
            let (qa, qb) = (quantize(&a).unwrap(), quantize(&b).unwrap());
            let got = qa.cosine(qb.scale, &qb.bytes()).unwrap();
            let want = exact_cosine(&a, &b);
            assert!((got - want).abs() < 0.02, "an int8 cosine must rank like the exact one: {got} vs {want}");
        }
        let a = random_vector(100, 7);
        let qa = quantize(&a).unwrap();
        let itself = qa.cosine(qa.scale, &qa.bytes()).unwrap();
        assert!((itself - 1.0).abs() < 0.01, "a vector is its own best match: {itself}");
        let scaled: Vec<f32> = a.iter().map(|x| x * 1000.0).collect();
        assert_eq!(quantize(&scaled), Some(qa), "length does not matter to a cosine: servers differ in normalising");
    }

    #[test]
    fn broken_vectors_match_nothing_and_widths_must_agree() {
        assert_eq!(quantize(&[]), None, "an empty embedding is no vector");
        assert_eq!(quantize(&[0.0, 0.0]), None, "an all-zero embedding has no direction");
        assert_eq!(quantize(&[1.0, f32::NAN]), None, "a NaN from a broken server must not be stored");
        let q = quantize(&[1.0, 0.0, 0.0]).unwrap();
        assert_eq!(q.cosine(1.0, &[1, 0]), None, "vectors of another model (another width) are not compared");
        assert_eq!(Quantized::from_bytes(q.scale, &q.bytes()), q, "stored bytes read back as they were");
        assert_eq!(q.bytes().len(), 3, "one byte per dimension");
    }

    #[test]
    fn dot_products_agree_with_a_plain_sum_at_every_length() {
        for len in [0, 1, 31, 32, 33, 576, 1000] {
            let mut next = numbers(len as u64);
            let a: Vec<i8> = (0..len).map(|_| (next() * 254.0) as i8).collect();
            let b: Vec<u8> = (0..len).map(|_| (next() * 254.0) as i8 as u8).collect();
            let plain: i32 = a.iter().zip(&b).map(|(x, y)| i32::from(*x) * i32::from(*y as i8)).sum();
            assert_eq!(dot(&a, &b), plain, "length {len}: the blocked loop must not drop the remainder");
        }
        let extreme_a = vec![-127i8; 4096];
        let extreme_b = vec![(-127i8) as u8; 4096];
        assert_eq!(dot(&extreme_a, &extreme_b), 127 * 127 * 4096, "the widest vectors at full scale do not overflow");
    }

    #[test]
    fn top_k_keeps_the_best_in_order_and_ties_in_arrival_order() {
        let mut top = TopK::new(3);
        for (score, name) in [(0.1, "a"), (0.9, "b"), (0.5, "c"), (0.9, "d"), (0.2, "e"), (f32::NAN, "nan")] {
            top.push(score, name);
        }
        let names: Vec<&str> = top.into_sorted().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["b", "d", "c"], "the best three, best first; an equal score keeps its place");
        let mut none = TopK::new(0);
        none.push(1.0, ());
        assert!(none.into_sorted().is_empty(), "k = 0 keeps nothing");
    }

    /// How long an exact scan takes: run with
    /// `cargo test --release -p maru-retrieval scan_timing -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn scan_timing() {
        let (dim, count) = (576, 200_000);
        let mut next = numbers(1);
        let stored: Vec<u8> = (0..dim * count).map(|_| (next() * 254.0) as i8 as u8).collect();
        let query = quantize(&random_vector(dim, 99)).unwrap();
        for _ in 0..3 {
            let started = std::time::Instant::now();
            let mut top = TopK::new(50);
            for (i, v) in stored.chunks_exact(dim).enumerate() {
                top.push(query.cosine(0.01, v).unwrap(), i);
            }
            let best = top.into_sorted();
            eprintln!("{count} vectors of {dim} dimensions: {:?} (best {:?})", started.elapsed(), best[0]);
        }
    }
}
