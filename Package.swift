// swift-tools-version: 6.3
import PackageDescription

let settings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let package = Package(
  name: "ContextWatcher",
  // Synchronization.Mutex and UInt128 need these releases.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "PredicateDSL", targets: ["PredicateDSL"]),
    .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
    .library(name: "ContextWatching", targets: ["ContextWatching"]),
    // The command-line formats `context-watch` and the PostgreSQL adapter's
    // `pg-watch` share: a product so that the adapter package can use it.
    .library(name: "WatchFormats", targets: ["WatchFormats"]),
    .executable(name: "context-watch", targets: ["ContextWatchTool"]),
  ],
  targets: [
    .target(name: "PredicateDSL", swiftSettings: settings),
    .target(name: "ObjectGraph", dependencies: ["PredicateDSL"], swiftSettings: settings),
    .target(
      name: "ContextWatching", dependencies: ["ObjectGraph", "PredicateDSL"],
      swiftSettings: settings),
    .target(
      name: "WatchFormats", dependencies: ["PredicateDSL", "ObjectGraph", "ContextWatching"],
      swiftSettings: settings),
    .executableTarget(
      name: "ContextWatchTool", dependencies: ["PredicateDSL", "ObjectGraph", "ContextWatching", "WatchFormats"],
      swiftSettings: settings),
    // The tests' helpers (the reference interpreter, the seeded generators,
    // the corpus): no product, so only this package's test targets see it.
    .target(
      name: "TestSupport", dependencies: ["PredicateDSL"], path: "Tests/TestSupport",
      swiftSettings: settings),
    .testTarget(
      name: "PredicateDSLTests", dependencies: ["PredicateDSL", "TestSupport"],
      swiftSettings: settings),
    .testTarget(
      name: "ObjectGraphTests", dependencies: ["ObjectGraph", "PredicateDSL", "TestSupport"],
      swiftSettings: settings),
    .testTarget(
      name: "ContextWatchingTests",
      dependencies: ["ContextWatching", "ObjectGraph", "PredicateDSL", "TestSupport"],
      swiftSettings: settings),
    .testTarget(
      name: "WatchFormatsTests", dependencies: ["WatchFormats", "ObjectGraph", "ContextWatching", "PredicateDSL"],
      swiftSettings: settings),
    .testTarget(
      name: "ContextWatchToolTests", dependencies: ["ContextWatchTool", "ObjectGraph", "WatchFormats", "TestSupport"],
      swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
