// swift-tools-version:6.1
// In-process micro-benchmarks of RecorderKit's per-buffer hot paths (run by Benchmarks/run).
import PackageDescription

let package = Package(
    name: "recorder-micro-benchmarks",
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(name: "recorder", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "RecorderBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RecorderKit", package: "recorder"),
            ],
            path: "Benchmarks/RecorderBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
