@_spi(Testing) import _BeeHiveDiscovery

/// Short texts for messages and tables.
extension InspectionReport.File {
    /// `path`, or `path(member)` for an archive member, as `ar` and linkers write it.
    func label(of image: InspectionReport.Image) -> String {
        image.member.map { "\(path)(\($0))" } ?? path
    }
}

extension InspectionReport.Record {
    /// Where in its image: `beehive_services+0x40`.
    var place: String { "\(section)+0x\(String(offset, radix: 16))" }

    /// Where in its file, for `xxd -s`: `0x2040`.
    var filePlace: String { "0x\(String(fileOffset, radix: 16))" }

    /// What the record declares, in a few words: `service App.Greeter[french]`, `module App.Login`,
    /// `route app://user/:id`.
    var summary: String {
        switch kind {
        case .services: "service \(service ?? "?")\(name.map { "[\($0)]" } ?? "")"
        case .modules: "module \(module ?? "?")"
        case .routes: "route \(route ?? "?")"
        case .types, .swiftRecords: kind.oneRecord  // never in a report (RecordDecoder)
        }
    }
}

extension InspectionReport.ImageType {
    /// In words: `executable`, `shared library`, `object file`, `ELF file`.
    var words: String {
        switch self {
        case .executable: "executable"
        case .sharedLibrary: "shared library"
        case .object: "object file"
        case .other: "ELF file"
        }
    }

    /// Whether the image is linked (an executable or a shared library), as opposed to part of a program.
    var isLinked: Bool { self == .executable || self == .sharedLibrary }
}

extension InspectionReport.Image {
    /// The valid records.
    var validRecords: [InspectionReport.Record] { records.filter { $0.error == nil } }
}
