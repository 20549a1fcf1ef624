// swift-tools-version: 6.1
// The benchmarks are a package of their own, so that the library's manifest
// stays free of dependencies. Run them from this directory with
//   swift package --disable-sandbox benchmark
import PackageDescription

// The library's products, from the root package by the name its manifest gives it
// (as the adapters name it), whatever the checkout's folder is called.
let predicateDSL = Target.Dependency.product(name: "PredicateDSL", package: "ContextWatcher")
let objectGraph = Target.Dependency.product(name: "ObjectGraph", package: "ContextWatcher")
let contextWatching = Target.Dependency.product(name: "ContextWatching", package: "ContextWatcher")

/// A suite of package-benchmark's runner, in Benchmarks/NAME: the plugin
/// runs every executable target there.
func suite(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
  .executableTarget(
    name: name, dependencies: [.product(name: "Benchmark", package: "package-benchmark")] + dependencies,
    path: "Benchmarks/\(name)", plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")])
}

/// A tool run on its own (`swift run -c release NAME`), in Tools/NAME, out of
/// the plugin's way.
func tool(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
  .executableTarget(name: name, dependencies: dependencies, path: "Tools/\(name)")
}

let package = Package(
  name: "ContextWatcherBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "ContextWatcher", path: ".."),
    .package(
      url: "https://github.com/ordo-one/package-benchmark", exact: "1.38.1",
      traits: ["MallocInterposer"]),
  ],
  targets: [
    suite("PredicateBenchmarks", [predicateDSL, "BenchmarkSupport"]),
    suite("EvaluationBenchmarks", [predicateDSL, "BenchmarkSupport"]),
    suite("ObjectGraphBenchmarks", ["BenchmarkSupport", objectGraph, predicateDSL]),
    suite("WatcherBenchmarks", [contextWatching, objectGraph, predicateDSL, "BenchmarkSupport"]),
    // Heap bytes per object, measured with glibc's mallinfo2() outside the
    // benchmark runner (whose malloc interposer would count its own blocks):
    //   swift run -c release ObjectGraphMemory
    tool("ObjectGraphMemory", ["BenchmarkSupport", "MallocInfo", objectGraph, predicateDSL]),
    // Heap bytes per watch, the same way:
    //   swift run -c release WatcherMemory
    tool("WatcherMemory", ["BenchmarkSupport", "MallocInfo", contextWatching, objectGraph, predicateDSL]),
    // Heap and peak memory a large predicate takes to compile:
    //   swift run -c release PredicateMemory
    tool("PredicateMemory", ["MallocInfo", predicateDSL]),
    // Drivers for callgrind profiles (see their headers).
    tool("ObjectGraphProfile", ["BenchmarkSupport", objectGraph, predicateDSL]),
    tool("WatcherProfile", ["BenchmarkSupport", contextWatching, objectGraph, predicateDSL]),
    // A list monitor's cost per save against re-fetching and diffing, and
    // its heap bytes per listed object:
    //   swift run -c release ListMonitorTiming
    tool("ListMonitorTiming", ["MallocInfo", "BenchmarkSupport", contextWatching, objectGraph, predicateDSL]),
    // Range watches: matching, registering, removing, heap bytes:
    //   swift run -c release RangeTiming
    tool("RangeTiming", ["MallocInfo", "BenchmarkSupport", contextWatching, objectGraph, predicateDSL]),
    // A fetch through an indexed attribute against a scan:
    //   swift run -c release FetchTiming
    tool("FetchTiming", [contextWatching, objectGraph, predicateDSL]),
    // A record read through the record decoder against a hand-written
    // initializer:
    //   swift run -c release RecordTiming
    tool("RecordTiming", [objectGraph, predicateDSL]),
    // What a typed list monitor adds to a list monitor's cost per changed
    // object:
    //   swift run -c release RecordListTiming
    tool("RecordListTiming", ["BenchmarkSupport", contextWatching, objectGraph, predicateDSL]),
    // Time-relative predicates: a save moving one due date among a million
    // timed objects, and one crossing:
    //   swift run -c release TimedTiming
    tool("TimedTiming", [contextWatching, objectGraph, predicateDSL]),
    // What coalescing costs a save, against delivering every save:
    //   swift run -c release CoalesceTiming
    tool("CoalesceTiming", [contextWatching, objectGraph]),
    .target(name: "MallocInfo", path: "Tools/MallocInfo"),
    // What the benchmarks measure (the predicates and the hand-written
    // closures they are compared with) and the seeded generator that makes
    // their data, the tests' own (a link to Tests/TestSupport).
    .target(name: "BenchmarkSupport", dependencies: [predicateDSL, objectGraph], path: "Support"),
  ],
  swiftLanguageModes: [.v6]
)
