/// The version `parlor --version` prints and the handshake announces.
public enum ParlorVersion {
    /// Semantic version of this build. Bump it in this one place.
    public static let current = "0.1.0"
}
