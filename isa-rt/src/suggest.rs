//! Did-you-mean suggestions for a misspelt name, as every assembler of the toolchain
//! makes them.

/// The nearest names by edit distance (at most a third of the word, at least 1),
/// closest first; when none is that near, those one swap of adjacent letters away
/// (`SHLF` → `SHFL`, two edits by distance). Ties go by name, whatever the order of the
/// candidates. Both tiers suggest with this function.
pub fn nearest<'c, const N: usize>(
    word: &str,
    candidates: impl Iterator<Item = &'c str> + Clone,
) -> [&'c str; N] {
    fn distance(a: &str, b: &str) -> usize {
        let b = b.as_bytes();
        if b.len() > 64 {
            return usize::MAX;
        }
        let mut prev = [0usize; 65];
        let mut cur = [0usize; 65];
        for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
            *p = j;
        }
        for (i, ca) in a.bytes().enumerate() {
            cur[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(!ca.eq_ignore_ascii_case(&cb));
                cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    /// `a` and `b` differ by one swap of two adjacent, different letters.
    fn swapped(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let same = |x: &u8, y: &u8| x.eq_ignore_ascii_case(y);
        (0..a.len().saturating_sub(1)).any(|i| {
            !same(&a[i], &a[i + 1])
                && same(&a[i], &b[i + 1])
                && same(&a[i + 1], &b[i])
                && a[..i].iter().zip(&b[..i]).all(|(x, y)| same(x, y))
                && a[i + 2..].iter().zip(&b[i + 2..]).all(|(x, y)| same(x, y))
        })
    }
    /// Keeps `best` the `N` smallest `(distance, name)` seen, without repeats: the
    /// answer does not depend on the order of the candidates.
    fn keep<'c, const N: usize>(best: &mut [(usize, &'c str); N], d: usize, c: &'c str) {
        let mut k = N;
        while k > 0 && (d, c) < best[k - 1] {
            k -= 1;
        }
        if k < N && !best.iter().any(|&(_, b)| b == c) {
            let mut j = N - 1;
            while j > k {
                best[j] = best[j - 1];
                j -= 1;
            }
            best[k] = (d, c);
        }
    }
    let limit = (word.len() / 3).max(1);
    let mut best: [(usize, &'c str); N] = [(usize::MAX, ""); N];
    for c in candidates.clone() {
        let d = distance(word, c);
        if d <= limit {
            keep(&mut best, d, c);
        }
    }
    if best[0].1.is_empty() {
        for c in candidates.filter(|c| swapped(word, c)) {
            keep(&mut best, 0, c);
        }
    }
    let mut out = [""; N];
    for (o, (_, b)) in out.iter_mut().zip(best) {
        *o = b;
    }
    out
}
