import Match
import Testing

@testable import Store

/// Store is a library product: its sentences say what was found, and leave
/// what to type next to the program (ParlorCLI names parlor's commands;
/// another program, such as Examples/Nim, names its own).
@Suite struct LibraryWordsTests {
    @Test func storeSentencesNameNoParlorCommand() {
        let id = MatchID(bytes: Array(repeating: 0xab, count: 16))!
        let sentences = [
            StoreError.notFound("zzzz").description,
            ResumeRefusal.nothingSaved.description,
            ResumeRefusal.nothingInterrupted.description,
            ResumeRefusal.nothingJoined.description,
            ResumeRefusal.over(id).description,
            ResumeRefusal.store(.notFound("zzzz")).description,
        ]
        #expect(sentences == [
            "no saved match matches 'zzzz'",
            "there is no saved match to resume",
            "no interrupted match is saved here",
            "no interrupted match joined as a guest is saved here",
            "match abababab is over",
            "no saved match matches 'zzzz'",
        ])
        for sentence in sentences {
            #expect(!sentence.contains("parlor "), "a library sentence names a parlor command: \(sentence)")
        }
    }
}
