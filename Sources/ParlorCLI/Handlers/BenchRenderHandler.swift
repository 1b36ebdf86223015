import TerminalUI

/// Runs `parlor bench render`: the bytes one redraw writes (a single write
/// each), at 80x24, for a full redraw and for the redraw after one move.
func runBenchRender(_ options: BenchRenderOptions) async throws -> ExitCode {
    Console.write("parlor bench render: bytes per redraw at 80x24 (each redraw is one write)\n")
    let profiles: [(String, DisplayOptions)] = [
        ("256 colours, Unicode", DisplayOptions(colorDepth: .palette256, unicode: true)),
        ("no colour, ASCII", DisplayOptions(colorDepth: .none, unicode: false)),
    ]
    for (name, display) in profiles {
        Console.write("  \(name):\n")
        for figure in Renderer.redrawFigures(options: display) {
            Console.write("    \(figure.label): \(figure.bytes) bytes\n")
        }
    }
    return .success
}
