// swift-tools-version:6.1
// A separate package that embeds RecorderKit by path, as a user's own tool would.
import PackageDescription

let package = Package(
    name: "take",
    dependencies: [.package(name: "recorder", path: "../..")],
    targets: [
        .executableTarget(name: "take", dependencies: [.product(name: "RecorderKit", package: "recorder")]),
    ],
    swiftLanguageModes: [.v6]
)
