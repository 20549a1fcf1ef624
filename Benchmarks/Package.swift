// swift-tools-version: 6.1
// The benchmarks are a package of their own, so that the library's manifest
// stays free of dependencies. Run them from this directory with
//   swift package --disable-sandbox benchmark
import Foundation
import PackageDescription

// SwiftPM gives a path dependency the identity of its folder's name, so the
// root package is named after the checkout's folder (this one's parent),
// whatever a clone was called.
let root = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

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
        .product(name: "PredicateDSL", package: root),
        .product(name: "ContextWatcherTestSupport", package: root),
      ],
      path: "Benchmarks/PredicateBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    .executableTarget(
      name: "EvaluationBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "PredicateDSL", package: root),
        .product(name: "ContextWatcherTestSupport", package: root),
      ],
      path: "Benchmarks/EvaluationBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    .executableTarget(
      name: "ObjectGraphBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Benchmarks/ObjectGraphBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    .executableTarget(
      name: "WatcherBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "package-benchmark"),
        .product(name: "ContextWatching", package: root),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
        .product(name: "ContextWatcherTestSupport", package: root),
      ],
      path: "Benchmarks/WatcherBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
    ),
    // Heap bytes per object, measured with glibc's mallinfo2() outside the
    // benchmark runner (whose malloc interposer would count its own blocks):
    //   swift run -c release ObjectGraphMemory
    // Kept out of Benchmarks/: the plugin runs every executable there.
    .executableTarget(
      name: "ObjectGraphMemory",
      dependencies: [
        "MallocInfo",
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/ObjectGraphMemory"
    ),
    // Heap bytes per watch, the same way:
    //   swift run -c release WatcherMemory
    .executableTarget(
      name: "WatcherMemory",
      dependencies: [
        "MallocInfo",
        .product(name: "ContextWatching", package: root),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/WatcherMemory"
    ),
    // Heap and peak memory a large predicate takes to compile:
    //   swift run -c release PredicateMemory
    .executableTarget(
      name: "PredicateMemory",
      dependencies: [
        "MallocInfo",
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/PredicateMemory"
    ),
    // Drivers for callgrind profiles (see their headers).
    .executableTarget(
      name: "ObjectGraphProfile",
      dependencies: [
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/ObjectGraphProfile"
    ),
    .executableTarget(
      name: "WatcherProfile",
      dependencies: [
        .product(name: "ContextWatching", package: root),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/WatcherProfile"
    ),
    // A list monitor's cost per save against re-fetching and diffing, and
    // its heap bytes per listed object:
    //   swift run -c release ListMonitorTiming
    .executableTarget(
      name: "ListMonitorTiming",
      dependencies: [
        "MallocInfo",
        .product(name: "ContextWatcherTestSupport", package: root),
        .product(name: "ContextWatching", package: root),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/ListMonitorTiming"
    ),
    // Interval watches: matching, registering, removing, heap bytes:
    //   swift run -c release IntervalTiming
    .executableTarget(
      name: "IntervalTiming",
      dependencies: [
        "MallocInfo",
        .product(name: "ContextWatcherTestSupport", package: root),
        .product(name: "ContextWatching", package: root),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/IntervalTiming"
    ),
    // A fetch through an indexed attribute against a scan:
    //   swift run -c release FetchTiming
    .executableTarget(
      name: "FetchTiming",
      dependencies: [
        .product(name: "ContextWatching", package: root),
        .product(name: "ObjectGraph", package: root),
        .product(name: "PredicateDSL", package: root),
      ],
      path: "Tools/FetchTiming"
    ),
    .target(name: "MallocInfo", path: "Tools/MallocInfo"),
  ],
  swiftLanguageModes: [.v6]
)
