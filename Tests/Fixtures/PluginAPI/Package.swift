// swift-tools-version:6.3
// The API a plugin shares with its host, as a shared library of its own: a host and a plugin that
// both link it see one copy of its protocols.
import PackageDescription

let package = Package(
    name: "PluginAPI",
    products: [.library(name: "PluginAPI", type: .dynamic, targets: ["PluginAPI"])],
    targets: [.target(name: "PluginAPI")]
)
