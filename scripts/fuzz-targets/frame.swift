// Target `frame`: FrameDecoder and Message.decode, everything a connection
// does with bytes from the network before any session logic sees them.
//
// Invariants: nothing traps; the same bytes give the same frames whether they
// arrive at once or in uneven chunks; a frame re-encodes to exactly the bytes
// it was read from; a message that decodes re-encodes to its payload; after an
// error the decoder keeps failing with the same error.
import Games
import Match
import Session

func fuzzOne(_ bytes: [UInt8]) {
    // All at once, through the static decoder.
    var whole: [Frame] = []
    var wholeError: FrameError?
    var offset = 0
    while true {
        do {
            guard let (frame, consumed) = try FrameDecoder.decode(bytes[offset...]) else { break }
            fuzzCheck(consumed >= FrameFormat.headerSize && consumed <= bytes.count - offset, "consumed \(consumed) bytes")
            fuzzCheck(FrameFormat.encode(frame) == Array(bytes[offset..<(offset + consumed)]), "a frame re-encodes differently")
            whole.append(frame)
            offset += consumed
        } catch {
            wholeError = error
            _ = error.description
            break
        }
    }

    // In uneven chunks, through the stateful decoder a connection uses.
    var decoder = FrameDecoder()
    var chunked: [Frame] = []
    var chunkedError: FrameError?
    feeding: for chunk in unevenChunks(bytes) {
        decoder.append(chunk)
        while true {
            do {
                guard let frame = try decoder.next() else { break }
                chunked.append(frame)
            } catch {
                chunkedError = error
                break feeding
            }
        }
    }
    fuzzCheck(chunked == whole, "chunked decoding found \(chunked.count) frames, whole found \(whole.count)")
    // A decoder that stopped early on an error may have seen less of a bad header.
    if let chunkedError {
        fuzzCheck(wholeError != nil, "chunked decoding failed (\(chunkedError)) where whole decoding did not")
        do { _ = try decoder.next(); fuzzCheck(false, "the decoder recovered after \(chunkedError)") } catch {
            fuzzCheck(error == chunkedError, "the decoder changed its error from \(chunkedError) to \(error)")
        }
    } else if let wholeError {
        fuzzCheck(false, "whole decoding failed (\(wholeError)) where chunked decoding did not")
    } else {
        fuzzCheck(decoder.bufferedByteCount == bytes.count - offset, "the decoder holds \(decoder.bufferedByteCount) bytes, expected \(bytes.count - offset)")
    }

    for frame in whole {
        let message: Message
        do { message = try Message.decode(frame) } catch {
            _ = error.description
            continue
        }
        fuzzCheck(message.type == frame.type, "a \(frame.type) frame decoded as \(message.type)")
        fuzzCheck(message.payload == frame.payload, "\(frame.type) re-encodes differently:\n  in  \(frame.payload.hexString)\n  out \(message.payload.hexString)")
    }
}

func fuzzSeeds() -> [(String, [UInt8])] {
    let messages = sampleMessages()
    var seeds = messages.map { ($0.0, $0.1.encoded) }
    // A whole session's worth of frames in one stream, as a connection sees it.
    seeds.append(("session", messages.flatMap { $0.1.encoded }))
    seeds.append(("http", Array("GET / HTTP/1.1\r\nHost: parlor\r\n\r\n".utf8)))
    seeds.append(("split-header", Array(Message.heartbeat(senderTime: 7).encoded.prefix(5))))
    return seeds
}
