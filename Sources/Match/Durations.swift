extension Duration {
    /// The duration in whole nanoseconds (towards zero), saturating at `Int64.min` and `Int64.max`:
    /// what a Dispatch deadline or the event loop's timer heap takes.
    public var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, carried) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !carried else { return seconds < 0 ? .min : .max }
        return sum
    }
}
