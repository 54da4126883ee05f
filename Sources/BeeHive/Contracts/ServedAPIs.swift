internal import _BeeHiveDiscovery

/// An API declaration read from an image: `@BeeHiveAPI("2.1.0")` on a protocol.
struct APIDeclaration {
    let record: APIRecord
    let source: RegistrationSource
    let imageID: UInt64
}

/// The versions of the service APIs that the process serves: the first declaration of each protocol's API among the
/// loaded images (its module's), withdrawn when that image is unloaded.
struct ServedAPIs {
    private var byName: [String: APIDeclaration] = [:]

    /// Whether no image declared an API version.
    var isEmpty: Bool { byName.isEmpty }

    /// The declaration of `api`'s version, if an image declared one.
    subscript(api: String) -> APIDeclaration? { byName[api] }

    /// Serves `declarations`; returns those of a protocol already served at another version (a second copy of its
    /// module), which are not served.
    mutating func serve(_ declarations: [APIDeclaration]) -> [(APIDeclaration, served: APIDeclaration)] {
        var conflicts: [(APIDeclaration, served: APIDeclaration)] = []
        for declaration in declarations {
            if let served = byName[declaration.record.api] {
                if served.record.version != declaration.record.version { conflicts.append((declaration, served)) }
            } else {
                byName[declaration.record.api] = declaration
            }
        }
        return conflicts
    }

    /// Withdraws the declarations of an unloaded image.
    mutating func withdraw(image: UInt64) {
        byName = byName.filter { $0.value.imageID != image }
    }
}
