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

// The transport: HTTP and WebSocket, tokens, lifecycle and logs.
let transport: [Target.Dependency] = [
  .product(name: "Hummingbird", package: "hummingbird"),
  .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
  .product(name: "JWTKit", package: "jwt-kit"),
  .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
  .product(name: "UnixSignals", package: "swift-service-lifecycle"),
  .product(name: "Logging", package: "swift-log"),
  .product(name: "PostgresChangeSource", package: "PostgresChangeSource"),
  .product(name: "NIOCore", package: "swift-nio"),
  .product(name: "NIOWebSocket", package: "swift-nio"),
  .product(name: "WSCore", package: "swift-websocket"),
]

let package = Package(
  name: "LiveQueryServer",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "LiveQueryCore", targets: ["LiveQueryCore"]),
    .library(name: "LiveQueryService", targets: ["LiveQueryService"]),
    .executable(name: "live-query-server", targets: ["LiveQueryServerCommand"]),
    .executable(name: "live-query-load", targets: ["LiveQueryLoad"]),
  ],
  dependencies: [
    .package(name: "ContextWatcher", path: "../.."),
    .package(name: "PostgresChangeSource", path: "../PostgresChangeSource"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
    .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
  ],
  targets: [
    .target(name: "LiveQueryCore", dependencies: libraries, swiftSettings: settings),
    .target(
      name: "LiveQueryService", dependencies: ["LiveQueryCore"] + libraries + transport,
      // The page: static HTML and JavaScript, served as they are.
      resources: [.copy("Page")], swiftSettings: settings),
    .executableTarget(
      name: "LiveQueryServerCommand",
      dependencies: ["LiveQueryService", "ArgumentReading", .product(name: "PostgresNIO", package: "postgres-nio")]
        + transport,
      swiftSettings: settings),
    // The tests' model of a client: a snapshot with its changes applied.
    .target(
      name: "LiveQueryTestSupport",
      dependencies: ["LiveQueryCore", .product(name: "ContextWatching", package: "ContextWatcher")],
      swiftSettings: settings),
    // The command-line options of the two executables.
    .target(name: "ArgumentReading", swiftSettings: settings),
    // HTTP GET on loopback for the tests and the load tool.
    .target(name: "LoopbackHTTP", swiftSettings: settings),
    .executableTarget(
      name: "LiveQueryLoad",
      dependencies: [
        "LiveQueryService", "LoopbackHTTP", "ArgumentReading",
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "Logging", package: "swift-log"),
      ] + libraries,
      swiftSettings: settings),
    .testTarget(
      name: "LiveQueryCoreTests", dependencies: ["LiveQueryCore", "LiveQueryTestSupport"] + libraries,
      swiftSettings: settings),
    .testTarget(
      name: "LiveQueryServiceTests",
      // The server and the load tool run as subprocesses; the tests talk to
      // the server over loopback sockets, and drive headless Chromium over
      // its DevTools protocol.
      dependencies: [
        "LiveQueryCore", "LiveQueryService", "LiveQueryServerCommand", "LiveQueryLoad", "LoopbackHTTP",
        "LiveQueryTestSupport",
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "JWTKit", package: "jwt-kit"),
        .product(name: "_CryptoExtras", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ] + libraries,
      swiftSettings: settings),
  ],
  swiftLanguageModes: [.v6]
)
