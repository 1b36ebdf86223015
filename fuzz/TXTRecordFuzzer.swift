// libFuzzer entry for the TXT codec and the parlor record parser:
// scripts/fuzz-txt builds it together with the two pure source files.
// Any trap (bounds, overflow, force unwrap) is a bug: peers send these bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTXTRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let txt = TXTRecord(decoding: bytes)
    // What survives decoding must encode and decode to itself.
    let again = TXTRecord(decoding: txt.encoded())
    if again != txt { fatalError("round trip changed the record: \(txt) -> \(again)") }
    let assessment = ParlorServiceInfo.assess(txt, supportedProtocolVersion: 1, knownGameIDs: ["connect4"])
    if assessment.isJoinable, let info = assessment.info, (try? info.txtRecord()) == nil {
        fatalError("a joinable record could not be written back")
    }
    return 0
}
