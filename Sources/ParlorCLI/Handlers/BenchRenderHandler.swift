import TerminalUI

/// Runs `parlor bench render`: the time to build one redraw and the bytes it
/// writes (a single write each), at 80x24, for a full redraw and for the
/// redraw after one move.
func runBenchRender(_ options: BenchRenderOptions) async throws -> ExitCode {
    Console.write("parlor bench render: time per frame and bytes per redraw at 80x24 (each redraw is one write)\n")
    let profiles: [(String, DisplayOptions)] = [
        ("256 colours, Unicode", DisplayOptions(colorDepth: .palette256, unicode: true)),
        ("no colour, ASCII", DisplayOptions(colorDepth: .none, unicode: false)),
    ]
    for (name, display) in profiles {
        Console.write("  \(name):\n")
        for figure in Renderer.redrawFigures(options: display) {
            Console.write("    \(figure.label): \(figure.perFrame.microseconds) µs per frame, \(figure.bytes) bytes\n")
        }
    }
    return .success
}
