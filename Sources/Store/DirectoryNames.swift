@preconcurrency import Glibc

/// The names in the directory at `path`, "." and ".." left out, in the order
/// `readdir` gives them; nil when it cannot be opened.
///
/// Each name is read in place, up to its NUL. A `dirent` that `readdir`
/// returns is only as long as its name needs (`d_reclen`), so copying the
/// struct's fixed 256-byte `d_name` out of it reads past the record, and past
/// the end of the mapping when the record ends a page: a segmentation fault
/// (seen once, in `parlor bench turns` removing its store).
public func directoryEntryNames(_ path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
        if name != ".", name != ".." { names.append(name) }
    }
    return names
}
