/// How many instances a factory registration makes.
public enum ServiceScope: Sendable, Hashable {
    /// A new instance for every request.
    case transient
    /// One instance, made on the first request and kept (until removed).
    case singleton
}
