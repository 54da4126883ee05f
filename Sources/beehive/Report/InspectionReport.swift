@_spi(Testing) import _BeeHiveDiscovery

/// What `beehive inspect --format json` prints: every record of every BeeHive section of the files given.
///
/// The schema is versioned and documented in Docs/CommandLineTool.md. Version 1 only adds fields in a
/// compatible way: a reader ignores fields it does not know, and fields that do not apply are absent (never
/// `null`). A change that an existing reader would misread gets a new ``version``.
struct InspectionReport: Codable, Sendable, Equatable {
    /// The schema version this tool writes.
    static let currentVersion = 1

    /// The schema version: 1.
    var version: Int
    /// The files, in the order given.
    var files: [File]

    /// Creates a report of the current version.
    init(files: [File]) {
        self.version = Self.currentVersion
        self.files = files
    }

    /// One file given on the command line.
    struct File: Codable, Sendable, Equatable {
        /// The path as given.
        var path: String
        /// `elf` or `archive`; absent when the file could not be read.
        var format: Format?
        /// Why the file could not be read at all (one line, without the path); absent when it was read.
        var error: String?
        /// For archives: how many members the archive has (its symbol and name tables not counted).
        var memberCount: Int?
        /// Problems of the file itself, besides its images' (an archive member header that cannot be read).
        var problems: [String]
        /// Records beyond the tool's limit per file (`InputFile.maximumRecords`), counted but not listed or
        /// checked; absent when every record is listed.
        var omittedRecords: Int?
        /// The file's ELF images: the file itself, or the archive members that have a BeeHive note, a record
        /// section or a problem (other members are left out).
        var images: [Image]

        /// Creates a file's report.
        init(
            path: String, format: Format? = nil, error: String? = nil, memberCount: Int? = nil, problems: [String],
            omittedRecords: Int? = nil, images: [Image]
        ) {
            self.path = path
            self.format = format
            self.error = error
            self.memberCount = memberCount
            self.problems = problems
            self.omittedRecords = omittedRecords
            self.images = images
        }
    }

    /// What kind of file it is.
    enum Format: String, Codable, Sendable {
        /// An ELF file: executable, shared library or object file.
        case elf
        /// An `ar` archive (a static library) of object files.
        case archive
    }

    /// One ELF image: a whole file, or one member of an archive.
    struct Image: Codable, Sendable, Equatable {
        /// The archive member's name; absent for a file that is not an archive.
        var member: String?
        /// What the image is.
        var type: ImageType
        /// What the image has of symbols: a full symbol table, exported symbols only, or none.
        var symbols: SymbolTable
        /// The BeeHive notes of the image, in section order (object files may have several).
        var notes: [Note]
        /// The record sections: those the notes name, and those with the default names.
        var sections: [Section]
        /// The records of those sections, in section and offset order.
        var records: [Record]
        /// Problems of the image: a malformed note, unreadable section headers, a truncated file, ….
        var problems: [String]
        /// The service APIs whose version the image declares (`@BeeHiveAPI`), protocol → version; absent when none.
        var declaresAPIs: [String: String]?
        /// The versions of service APIs the image's code was compiled against, protocol → version (from the API
        /// markers in its read-only data); absent when none.
        var builtAgainstAPIs: [String: String]?
    }

    /// What an ELF image is.
    enum ImageType: String, Codable, Sendable {
        /// An executable (ET_EXEC, or a position-independent one).
        case executable
        /// A shared library (ET_DYN): a plugin, or a library a program links.
        case sharedLibrary
        /// An object file (ET_REL), alone or in an archive: part of a program not linked yet.
        case object
        /// A core file or another kind of ELF file.
        case other
    }

    /// What an image has of symbols.
    enum SymbolTable: String, Codable, Sendable {
        /// A `.symtab`: every symbol, local ones included.
        case full
        /// Only `.dynsym` (a stripped shared library or executable): exported symbols only.
        case dynamic
        /// No symbol table at all.
        case none
    }

    /// A BeeHive image note (owner `BeeHive`, type 1).
    struct Note: Codable, Sendable, Equatable {
        /// The index of the section that holds it.
        var section: Int
        /// Its format version; entries of versions 1 and 2 are read.
        var version: Int
        /// The record sections it names.
        var entries: [NoteEntry]
    }

    /// One `kind=section` entry of a note.
    struct NoteEntry: Codable, Sendable, Equatable {
        /// What the section holds.
        var kind: RecordKind
        /// The section's name.
        var section: String
    }

    /// A record section.
    struct Section: Codable, Sendable, Equatable {
        /// The section's name.
        var name: String
        /// What it holds.
        var kind: RecordKind
        /// Its index in the section header table.
        var index: Int
        /// Its offset from the start of the file given (for an archive member: of the archive).
        var fileOffset: UInt64
        /// Its size in bytes.
        var size: UInt64
        /// Its address; absent in object files, whose sections have none yet.
        var address: UInt64?
        /// Its `sh_flags`.
        var flags: UInt64
        /// Whether it is allocated (`SHF_ALLOC`): loaded into memory, where the scanner can find it.
        var allocated: Bool
        /// Whether it is retained (`SHF_GNU_RETAIN`): kept by a link with `--gc-sections`. Only object files
        /// keep this flag; linkers clear it in what they write.
        var retained: Bool
        /// Whether a note of this image names it (otherwise it has a default name the note does not give).
        var namedByNote: Bool
        /// Why its bytes could not be read; absent when they were.
        var error: String?
    }

    /// A record's kind as the report writes it: in the singular, what one record declares ("service", "module",
    /// "route"); a section's and a note entry's kind are written as `RecordKind`'s raw value ("services", …).
    @propertyWrapper
    struct OneRecord: Codable, Sendable, Equatable {
        var wrappedValue: RecordKind

        init(wrappedValue: RecordKind) { self.wrappedValue = wrappedValue }

        init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            guard let kind = RecordKind(rawValue: name + "s") else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: name))
            }
            wrappedValue = kind
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(wrappedValue.oneRecord)
        }
    }

    /// One record, as the library reads it at load time.
    struct Record: Codable, Sendable, Equatable {
        /// What the record declares (from its section's kind), even when it is malformed.
        @OneRecord var kind: RecordKind
        /// The section's name.
        var section: String
        /// The section's index in the section header table (object files may have several of one name).
        var sectionIndex: Int
        /// The record's offset from the start of its section.
        var offset: Int
        /// The record's offset from the start of the file (section file offset + offset).
        var fileOffset: UInt64
        /// The file the annotation was written in, when the record says (format version 2).
        var file: String?
        /// The annotation's line in `file`.
        var line: Int?
        /// Services: the service (protocol) name.
        var service: String?
        /// Services: the implementation type's name.
        var implementation: String?
        /// Services: the registration's name, when the record gives one.
        var name: String?
        /// Services: the rank, when the record gives one other than 0 (higher serves first).
        var rank: Int?
        /// Services: the properties, when the record gives any.
        var properties: [String: String]?
        /// Services: the version of the service's API the implementation was built against, when the record says
        /// (`"api"`, a C record; a Swift record's version is in its image's read-only data, not in its JSON).
        var api: String?
        /// Modules: the module type's name.
        var module: String?
        /// Modules: the level (basic 0, normal 1, application 2, or the integer given); default 1.
        var level: Int?
        /// Modules: the priority, higher first; default 0.
        var priority: Int?
        /// Modules: whether the init event runs off the caller's thread; default false.
        var async: Bool?
        /// Routes: the URL pattern.
        var route: String?
        /// Routes: the handler type's name.
        var handler: String?
        /// Where the record was written, when the symbol table tells.
        var source: Source?
        /// Why the record cannot be registered; absent for a valid record. The declaration fields are absent then.
        var error: RecordProblem?
        /// Malformed records: the record's text (invalid UTF-8 replaced, cut after 120 bytes).
        var text: String?

        /// The type the record names: the implementation, the module or the handler.
        var typeName: String? { implementation ?? module ?? handler }
    }

    /// Where a record was written: the symbol that holds it and the source file the symbol table names.
    struct Source: Codable, Sendable, Equatable {
        /// The source file (the `STT_FILE` symbol before the record's symbol), when there is one.
        var file: String?
        /// The symbol at the record's address, e.g. `bh__record_3`.
        var symbol: String
    }

    /// Why a record cannot be registered.
    struct RecordProblem: Codable, Sendable, Equatable {
        /// The library's error code: `malformedRecord`, `invalidUTF8`, `unterminatedRecord` or
        /// `unknownModuleLevel`.
        var code: String
        /// What was expected and what was found (the library's message).
        var message: String
        /// Where in the record, when known.
        var byteOffset: Int?
    }
}
