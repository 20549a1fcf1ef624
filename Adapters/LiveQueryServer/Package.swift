// swift-tools-version: 6.3
import PackageDescription

let settings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

// The root package's libraries: the predicate language, the object graph,
// the watcher and its monitors, and the JSON conventions of the tools.
let libraries: [Target.Dependency] = [
  .product(name: "PredicateDSL", package: "ContextWatcher"),
  .product(name: "ObjectGraph", package: "ContextWatcher"),
  .product(name: "ContextWatching", package: "ContextWatcher"),
  .product(name: "WatchFormats", package: "ContextWatcher"),
]

let package = Package(
  name: "LiveQueryServer",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "LiveQueryCore", targets: ["LiveQueryCore"])
  ],
  dependencies: [
    .package(name: "ContextWatcher", path: "../..")
  ],
  targets: [
    .target(name: "LiveQueryCore", dependencies: libraries, swiftSettings: settings),
    .testTarget(
      name: "LiveQueryCoreTests", dependencies: ["LiveQueryCore"] + libraries, swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
