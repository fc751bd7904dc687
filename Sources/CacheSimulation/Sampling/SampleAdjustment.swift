/// How a sampled hit count is corrected for which keys the sample happened to draw.
public enum SampleAdjustment: String, Sendable, CaseIterable {
    /// SHARDS-adj (Waldspurger et al., FAST '15): the difference between the requests
    /// expected at the rate and those sampled is counted as hits, as if every request
    /// of a key drawn too often or too rarely were a hit.
    case shards
    /// A control variate from a hit model: each key's expected hits at the full-size
    /// cache (its reuses, the requests after its first in each launch, times Che's
    /// probability that LRU holds it, from its request count in the whole trace),
    /// weighed by how far the draw kept or dropped it from the rate. A hot key the
    /// sample holds is taken off at the hits the model gives it, a cold one barely
    /// moves the estimate. Unbiased whatever the model's accuracy; the closer the
    /// model, the smaller the error of one draw.
    case hitModel = "hit-model"
}
