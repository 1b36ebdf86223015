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
        items.withUnsafeMutableBufferPointer { buffer in
            var child = buffer.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                if !(buffer[child] < buffer[parent]) { break }
                buffer.swapAt(parent, child)
                child = parent
            }
        }
    }

    /// Takes the least element off, nil when empty.
    @discardableResult
    mutating func pop() -> Element? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        return items.withUnsafeMutableBufferPointer { buffer in
            let top = buffer[0]
            buffer[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < buffer.count, buffer[left] < buffer[smallest] { smallest = left }
                if right < buffer.count, buffer[right] < buffer[smallest] { smallest = right }
                if smallest == parent { break }
                buffer.swapAt(parent, smallest)
                parent = smallest
            }
            return top
        }
    }

    /// Replaces the contents with `elements`.
    mutating func rebuild(_ elements: [Element]) {
        items = []
        items.reserveCapacity(elements.count)
        for element in elements { push(element) }
    }
}
