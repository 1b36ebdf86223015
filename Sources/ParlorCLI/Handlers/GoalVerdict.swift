/// How every bench report words whether a goal was met, so they all agree
/// and a miss stands out in a column of figures.
func goalVerdict(_ met: Bool) -> String { met ? "met" : "NOT met" }
