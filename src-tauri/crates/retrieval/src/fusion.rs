//! Reciprocal rank fusion: several rankings of the same passages (the index's words, the
//! embeddings' meaning) become one, each passage scoring `Σ 1 / (k + rank)` over the lists it is
//! in. Only ranks count, never scores, so a BM25 score and a cosine need no common scale; a
//! passage high in both lists beats one at the top of only one. `k = 60` is the constant of the
//! original paper (Cormack et al., 2009) and what Open WebUI and most hybrid searches use: it
//! keeps the top few of one list from drowning out agreement further down.

use std::collections::HashMap;
use std::hash::Hash;

/// The usual constant.
pub const K: f64 = 60.0;

/// The items of `lists` (each best first), fused best first with their scores. An item in no
/// list is absent; a tie keeps the order in which the items were first met, lists in order.
pub fn reciprocal_rank<T: Eq + Hash + Clone>(lists: &[Vec<T>], k: f64) -> Vec<(T, f64)> {
    let mut scores: HashMap<T, (f64, usize)> = HashMap::new();
    let mut met = 0;
    for list in lists {
        for (rank, item) in list.iter().enumerate() {
            let entry = scores.entry(item.clone()).or_insert_with(|| {
                met += 1;
                (0.0, met)
            });
            entry.0 += 1.0 / (k + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(T, f64, usize)> = scores.into_iter().map(|(item, (score, first))| (item, score, first)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    fused.into_iter().map(|(item, score, _)| (item, score)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(fused: Vec<(&'static str, f64)>) -> Vec<&'static str> {
        fused.into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn agreement_beats_one_list_alone() {
        let words = vec!["licence", "pinning", "install"];
        let meaning = vec!["python-version", "pinning", "licence"];
        let fused = names(reciprocal_rank(&[words, meaning], K));
        assert_eq!(fused[0], "licence", "first in one list and third in the other wins");
        assert_eq!(fused[1], "pinning", "second in both beats first in one only");
        assert_eq!(fused.len(), 4, "every passage either list found is kept, once");
        assert!(fused.contains(&"python-version"), "a passage only the meaning found still comes back");
    }

    #[test]
    fn one_list_keeps_its_order_and_ties_keep_the_first_met() {
        assert_eq!(names(reciprocal_rank(&[vec!["a", "b", "c"]], K)), ["a", "b", "c"], "fusing one ranking changes nothing");
        let fused = names(reciprocal_rank(&[vec!["a"], vec!["b"]], K));
        assert_eq!(fused, ["a", "b"], "equal scores: the lexical list (given first) decides");
        assert!(reciprocal_rank::<u32>(&[vec![], vec![]], K).is_empty());
    }

    #[test]
    fn scores_are_reciprocal_ranks() {
        let fused = reciprocal_rank(&[vec![1, 2], vec![2]], K);
        assert_eq!(fused[0], (2, 1.0 / 62.0 + 1.0 / 61.0), "rank 2 in one list, rank 1 in the other");
        assert_eq!(fused[1], (1, 1.0 / 61.0));
    }
}
