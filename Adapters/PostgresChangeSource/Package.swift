// swift-tools-version: 6.3
import PackageDescription

let settings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

// The root package's libraries and the database client, which every
// target here uses.
let libraries: [Target.Dependency] = [
  .product(name: "PredicateDSL", package: "ContextWatcher"),
  .product(name: "ObjectGraph", package: "ContextWatcher"),
  .product(name: "PostgresNIO", package: "postgres-nio"),
  .product(name: "Logging", package: "swift-log"),
]
// What the executables and the tests add: the adapter and the watcher.
let clients: [Target.Dependency] =
  ["PostgresChangeSource", .product(name: "ContextWatching", package: "ContextWatcher")] + libraries

let package = Package(
  name: "PostgresChangeSource",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "PostgresChangeSource", targets: ["PostgresChangeSource"]),
    .executable(name: "pg-watch", targets: ["PgWatch"]),
    .executable(name: "pg-replica-timing", targets: ["PostgresReplicaTiming"]),
  ],
  dependencies: [
    .package(name: "ContextWatcher", path: "../.."),
    .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
  ],
  targets: [
    // libpq, for the streaming replication protocol, which postgres-nio
    // does not speak.
    .systemLibrary(
      name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
    .target(
      name: "PostgresChangeSource",
      // WatchFormats: the schema file's JSON, as `context-watch` reads it.
      dependencies: libraries + ["CLibPQ", .product(name: "WatchFormats", package: "ContextWatcher")],
      swiftSettings: settings),
    .executableTarget(
      name: "PgWatch",
      // The formats of `context-watch replay`: the watches file and the lines.
      dependencies: clients + [.product(name: "WatchFormats", package: "ContextWatcher")],
      swiftSettings: settings),
    .executableTarget(name: "PostgresReplicaTiming", dependencies: clients, swiftSettings: settings),
    .testTarget(
      name: "PostgresChangeSourceTests",
      // PgWatch: built for the tests that run `pg-watch` as a subprocess.
      dependencies: clients + ["PgWatch"],
      swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
