/// A binary min-heap: the least element on top, push and pop in O(log n).
/// The timers of the event loop and of `LivenessClock` keep their deadlines in one.
struct MinHeap<Element: Comparable>: Sendable where Element: Sendable {
    private var items: [Element] = []

    init() {}

    /// The least element, nil when empty.
    func peek() -> Element? { items.first }

    var count: Int { items.count }

    mutating func push(_ item: Element) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if !(items[child] < items[parent]) { break }
            items.swapAt(parent, child)
            child = parent
        }
    }

    /// Takes the least element off, nil when empty.
    @discardableResult
    mutating func pop() -> Element? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count, items[left] < items[smallest] { smallest = left }
            if right < items.count, items[right] < items[smallest] { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    /// Replaces the contents with `elements`.
    mutating func rebuild(_ elements: [Element]) {
        items = []
        items.reserveCapacity(elements.count)
        for element in elements { push(element) }
    }
}
