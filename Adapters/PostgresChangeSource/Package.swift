// swift-tools-version: 6.3
import PackageDescription

let settings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

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
    .target(
      name: "PostgresChangeSource",
      dependencies: [
        .product(name: "ObjectGraph", package: "ContextWatcher"),
        .product(name: "PredicateDSL", package: "ContextWatcher"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings),
    .executableTarget(
      name: "PgWatch",
      dependencies: [
        "PostgresChangeSource",
        .product(name: "PredicateDSL", package: "ContextWatcher"),
        .product(name: "ObjectGraph", package: "ContextWatcher"),
        .product(name: "ContextWatching", package: "ContextWatcher"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings),
    .executableTarget(
      name: "PostgresReplicaTiming",
      dependencies: [
        "PostgresChangeSource",
        .product(name: "PredicateDSL", package: "ContextWatcher"),
        .product(name: "ObjectGraph", package: "ContextWatcher"),
        .product(name: "ContextWatching", package: "ContextWatcher"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings),
    .testTarget(
      name: "PostgresChangeSourceTests",
      dependencies: [
        "PostgresChangeSource",
        // Built for the tests that run `pg-watch` as a subprocess.
        "PgWatch",
        .product(name: "PredicateDSL", package: "ContextWatcher"),
        .product(name: "ObjectGraph", package: "ContextWatcher"),
        .product(name: "ContextWatching", package: "ContextWatcher"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
