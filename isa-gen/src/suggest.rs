//! "Did you mean …?" suggestions by edit distance.

/// Edit distance over characters, case-insensitive: insertions, deletions,
/// substitutions and swaps of two neighbours (`Flase` is one edit from `False`), each
/// counting one (the optimal string alignment distance).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            let mut d = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && *ca == b[j - 1] && a[i - 1] == *cb {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The nearest candidate within a distance of a third of the word (at least 1), if any.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    nearest_n(word, candidates, 1).into_iter().next()
}

/// Up to `n` nearest candidates, closest first.
pub fn nearest_n<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("Pred", "pred"), 0);
        assert_eq!(distance("", "abc"), 3);
        // A swap of neighbours is one edit; of letters apart, two.
        assert_eq!(distance("Flase", "False"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("abc", "cba"), 2);
        assert_eq!(distance("abcd", "acbd"), 1);
    }

    #[test]
    fn nearest_picks_closest_within_limit() {
        assert_eq!(nearest("Pred", ["UPred", "Reg"]), Some("UPred"));
        // Ties go to the alphabetically first candidate, so output is stable.
        assert_eq!(nearest("Pred", ["UPred", "Pred2"]), Some("Pred2"));
        assert_eq!(nearest("Xyzzy", ["Reg", "Pred"]), None);
    }
}
