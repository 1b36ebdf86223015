import Games
import Match
import Testing
@testable import Session

/// The frame codec: header layout, chunking, and every way a stream can be wrong.
@Suite struct FrameProtocolTests {
    @Test func headerLayoutIsMagicVersionTypeAndBigEndianLength() {
        let bytes = FrameFormat.encode(Frame(type: .heartbeat, payload: [1, 2, 3]))
        #expect(bytes == [0x50, 0x4C, 0x01, 0x0A, 0x00, 0x00, 0x00, 0x03, 1, 2, 3])
    }

    @Test func decodesOneFrameFedByteByByteAndConsumesNothingUntilComplete() throws {
        let frame = Frame(type: .turn, payload: Array(0..<40))
        let bytes = FrameFormat.encode(frame)
        var decoder = FrameDecoder()
        for (index, byte) in bytes.enumerated() {
            decoder.append([byte])
            let result = try decoder.next()
            if index < bytes.count - 1 {
                #expect(result == nil)
                #expect(decoder.bufferedByteCount == index + 1)
            } else {
                #expect(result == frame)
                #expect(decoder.bufferedByteCount == 0)
            }
        }
    }

    @Test func decodesManyFramesFromOneChunk() throws {
        let frames = (0..<50).map { Frame(type: .heartbeat, payload: Array(repeating: UInt8($0), count: $0 % 9)) }
        var decoder = FrameDecoder()
        decoder.append(frames.flatMap(FrameFormat.encode))
        var decoded: [Frame] = []
        while let frame = try decoder.next() { decoded.append(frame) }
        #expect(decoded == frames)
    }

    @Test func decodesFramesSplitAtEveryPossibleBoundary() throws {
        let frames = [Frame(type: .confirm, payload: Array(0..<20)), Frame(type: .stateRequest, payload: [0, 0, 0, 1]),
                      Frame(type: .state, payload: [])]
        let bytes = frames.flatMap(FrameFormat.encode)
        for cut in 0...bytes.count {
            var decoder = FrameDecoder()
            var decoded: [Frame] = []
            decoder.append(bytes[..<cut])
            while let frame = try decoder.next() { decoded.append(frame) }
            decoder.append(bytes[cut...])
            while let frame = try decoder.next() { decoded.append(frame) }
            #expect(decoded == frames, "cut at \(cut)")
        }
    }

    @Test func truncatedInputYieldsNoFrame() throws {
        let bytes = FrameFormat.encode(Frame(type: .turn, payload: Array(repeating: 7, count: 100)))
        for length in 0..<bytes.count {
            #expect(try FrameDecoder.decode(bytes[..<length]) == nil)
        }
    }

    @Test func headerAnnouncingFourGigabytesIsRefusedFromTheHeaderAlone() {
        var decoder = FrameDecoder()
        decoder.append([0x50, 0x4C, 0x01, 0x04, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: FrameError.oversize(0xFFFF_FFFF)) { try decoder.next() }
        // Nothing was reserved for the announced payload: only the header is held.
        #expect(decoder.bufferedByteCount == 8)
    }

    @Test func oneByteOverTheMaximumIsRefusedAndTheMaximumIsAccepted() throws {
        let limit = UInt32(FrameFormat.maximumPayload)
        var over = ByteWriter()
        over.write(bytes: [0x50, 0x4C, 0x01, 0x08]); over.write(limit + 1)
        #expect(throws: FrameError.oversize(limit + 1)) { try FrameDecoder.decode(over.bytes[...]) }
        var exact = ByteWriter()
        exact.write(bytes: [0x50, 0x4C, 0x01, 0x08]); exact.write(limit)
        #expect(try FrameDecoder.decode(exact.bytes[...]) == nil)  // valid header, waits for the payload
    }

    @Test(arguments: ["GET / HTTP/1.1\r\n", "POST /x HTTP/1.0\r\n", "HEAD / HTTP/1.1\r\n", "OPTIONS * HTTP/1.1\r\n"])
    func httpRequestIsRecognised(request: String) {
        var decoder = FrameDecoder()
        decoder.append(Array(request.utf8))
        let method = String(request.prefix { $0 != " " })
        #expect(throws: FrameError.httpRequest(method: method)) { try decoder.next() }
    }

    @Test func httpMethodPrefixWaitsForMoreBytes() throws {
        #expect(try FrameDecoder.decode(Array("GE".utf8)[...]) == nil)
        #expect(try FrameDecoder.decode(Array("PO".utf8)[...]) == nil)
    }

    @Test func wrongMagicIsRefusedAtTheFirstWrongByte() {
        #expect(throws: FrameError.badMagic([0x00])) { try FrameDecoder.decode([0x00][...]) }
        #expect(throws: FrameError.badMagic([0x50, 0x4D, 0x42, 0x00])) { try FrameDecoder.decode([0x50, 0x4D, 0x42, 0x00][...]) }
        #expect(throws: FrameError.badMagic(Array("SSH-2.0-".utf8))) { try FrameDecoder.decode(Array("SSH-2.0-OpenSSH".utf8)[...]) }
    }

    @Test func futureProtocolVersionIsRefused() {
        #expect(throws: FrameError.unsupportedVersion(2)) { try FrameDecoder.decode([0x50, 0x4C, 0x02, 0x01, 0, 0, 0, 0][...]) }
        #expect(throws: FrameError.unsupportedVersion(0)) { try FrameDecoder.decode([0x50, 0x4C, 0x00][...]) }
    }

    @Test func unknownMessageTypeIsRefused() {
        // 14 is TABLE, 15 SEAT and 16 TALK (protocol 2); the rest up to 31 are still reserved.
        #expect(throws: FrameError.unknownType(31)) { try FrameDecoder.decode([0x50, 0x4C, 0x01, 31, 0, 0, 0, 0][...]) }
        #expect(throws: FrameError.unknownType(0)) { try FrameDecoder.decode([0x50, 0x4C, 0x01, 0][...]) }
    }

    @Test func decoderStaysFailedAfterAnError() {
        var decoder = FrameDecoder()
        decoder.append([0x42])
        #expect(throws: FrameError.badMagic([0x42])) { try decoder.next() }
        decoder.append(Message.heartbeat(senderTime: 1).encoded)
        #expect(throws: FrameError.badMagic([0x42])) { try decoder.next() }
    }

    @Test func randomBytesNeverTrapAndUsuallyFailFast() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            let length = Int(generator.next() % 64)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var decoder = FrameDecoder()
            decoder.append(bytes)
            do {
                while let frame = try decoder.next() { _ = try? Message.decode(frame) }
            } catch {
                // Every error is a clean FrameError.
            }
        }
    }
}
