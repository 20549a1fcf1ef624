// swift-tools-version: 6.1
// The benchmarks are a package of their own, so that the library's manifest
// stays free of dependencies. Run them from this directory with
//   swift package --disable-sandbox benchmark
import PackageDescription

let package = Package(
  name: "ContextWatcherBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    .package(
      url: "https://github.com/ordo-one/package-benchmark", exact: "1.38.1",
      traits: ["MallocInterposer"]),
  ],
  targets: [
    .executableTarget(
      name: "PredicateBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "PredicateDSL", package: "main"),
      ],
      path: "Benchmarks/PredicateBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    .executableTarget(
      name: "EvaluationBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "PredicateDSL", package: "main"),
        .product(name: "ContextWatcherTestSupport", package: "main"),
      ],
      path: "Benchmarks/EvaluationBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
