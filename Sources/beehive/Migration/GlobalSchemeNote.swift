import BeeHive
import _BeeHiveFileFormats

/// What `beehive migrate` says about `BeeHive.plist`'s `URLGlobalScheme`, the scheme of BHRouter's global router.
///
/// No annotation record carries a setting, so the scheme cannot become a line of the C file. The note is a comment
/// in that file that gives the one Swift line which sets the same scheme (`Router.setGlobalScheme`). A file that
/// names none gets no comment: BHRouter's default, `com.alibaba.beehive`, is `Router.defaultGlobalScheme` too.
struct GlobalSchemeNote {
    /// The key of `BeeHive.plist`: `URLGlobalScheme`.
    static let key = "URLGlobalScheme"

    /// The scheme the file names, or `nil` when it names none.
    let scheme: String?
    /// The file, for the comment.
    let path: String

    /// Reads the key from the modules file.
    ///
    /// - Parameter path: `BeeHive.plist` (or the same as JSON).
    /// - Throws: `HiveError` `fileNotFound` or `malformedFile` (a value that is not a non-empty string included).
    init(modulesFile path: String) throws(HiveError) {
        self.path = path
        scheme = try ConfigurationFile.string(forKey: Self.key, inFile: path)
    }

    /// The C comment for the generated file; empty when the file names no scheme.
    var comment: String {
        let file = Self.commentSafe(path)
        // No scheme: BHRouter answers com.alibaba.beehive, as Router.globalSchemeRouter does; nothing to carry.
        guard let scheme else { return "" }
        let swift = "Router.setGlobalScheme(\(JSONString.quoted(scheme)))"
        return """

            /*
             * \(file) sets \(Self.key) = \(Self.commentSafe(scheme)), the scheme of BHRouter's global
             * router. No record carries settings: at startup, in Swift (import BeeHiveRouter), call
             *     \(Self.commentSafe(swift))
             * or keep the file and call try Router.loadGlobalScheme(fromConfig: "<path of BeeHive.plist>").
             * Then Router.globalSchemeRouter is BHRouter's [BHRouter globalRouter].
             */

            """
    }

    /// `text` with no `*/` that would end the comment early.
    private static func commentSafe(_ text: String) -> String {
        text.replacing("*/", with: "*\\/")
    }
}
