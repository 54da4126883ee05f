#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names the Swift type whose nominal type descriptor a symbol is (`$s3App4ImplCMn` is `App.Impl`), or the protocol
/// whose protocol descriptor it is (`$s3App7ServiceMp` is `App.Service`).
///
/// A class, struct or enum `App.Outer.Impl` that is in a binary has a nominal type descriptor there, a symbol
/// `$s…Mn` (for example `$s3App5OuterV4ImplCMn`). Its mangling has the kind of every level (C class, V struct,
/// O enum), which a dotted name does not say, and replaces words repeated across the name's parts by
/// references (`$s11BeeHiveDemo0abC7ServiceCMn`), so the tool does not build manglings from names: it demangles
/// the descriptors the symbol table has, with the Swift runtime's own demangler, and compares names.
enum TypeDescriptorName {
    /// The dotted name of the type whose descriptor `symbol` is, or nil when it is not one (or the type is
    /// private or local, which records cannot name).
    static func typeName(ofDescriptor symbol: String) -> String? {
        name(of: symbol, suffix: "Mn", described: "nominal type descriptor for ")
    }

    /// The dotted name of the protocol whose descriptor `symbol` is, or nil when it is not one (or the protocol is
    /// private or local).
    static func protocolName(ofDescriptor symbol: String) -> String? {
        name(of: symbol, suffix: "Mp", described: "protocol descriptor for ")
    }

    private static func name(of symbol: String, suffix: String, described prefix: String) -> String? {
        guard symbol.hasPrefix("$s"), symbol.hasSuffix(suffix) else { return nil }
        guard let demangled = demangle(symbol), demangled.hasPrefix(prefix) else { return nil }
        let name = demangled.dropFirst(prefix.count)
        // Private types read "Module.(Name in _HASH)", extensions "(extension in M):…", local types "… #1 in …".
        guard !name.contains(where: { $0 == "(" || $0 == " " || $0 == "<" }) else { return nil }
        return String(name)
    }

    private static func demangle(_ symbol: String) -> String? {
        symbol.utf8CString.withUnsafeBufferPointer { buffer -> String? in
            guard let result = swiftDemangle(buffer.baseAddress, buffer.count - 1, nil, nil, 0) else { return nil }
            defer { free(result) }
            return String(cString: result)
        }
    }
}

/// The Swift runtime's demangler (exported by libswiftCore, as used by backtraces): a `malloc`ed string or nil.
@_silgen_name("swift_demangle")
private func swiftDemangle(
    _ mangledName: UnsafePointer<CChar>?, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
