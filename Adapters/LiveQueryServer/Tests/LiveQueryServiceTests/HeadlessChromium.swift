import Foundation
import LoopbackHTTP
import WatchFormats

/// Debian's `chromium`, headless, driven over the DevTools protocol: it
/// loads a page, evaluates JavaScript in it and takes screenshots. The
/// protocol's WebSocket is spoken by ``LiveClient``.
final class HeadlessChromium: Sendable {
  /// The browser, when installed (`.ci/run` installs Debian's `chromium`).
  static var executable: String? {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  private let process: Process
  private let profile: URL
  private let page: LiveClient
  private let nextID = Locked(0)

  /// Starts the browser on `url` and attaches to its page.
  init(url: String) async throws {
    guard let executable = Self.executable else { throw ServerProcessError(message: "chromium is not installed") }
    profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [
      "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
      "--no-proxy-server", "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=\(profile.path)",
      "--window-size=1000,1200", url,
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The browser writes its DevTools port to the profile once it listens.
    let portFile = profile.appendingPathComponent("DevToolsActivePort")
    let deadline = ContinuousClock.now + .seconds(60)
    var port: Int?
    while port == nil, ContinuousClock.now < deadline {
      if let text = try? String(contentsOf: portFile, encoding: .utf8), let line = text.split(separator: "\n").first {
        port = Int(line)
      } else {
        try await Task.sleep(for: .milliseconds(50))
      }
    }
    guard let port else { throw ServerProcessError(message: "chromium did not open its DevTools port") }
    var pageURL: String?
    while pageURL == nil, ContinuousClock.now < deadline {
      // The port file can come before the port listens: try again.
      let list = (try? LoopbackHTTP.get(port: port, path: "/json/list").body) ?? "[]"
      if case .array(let targets) = try JSONValue.parse(Array(list.utf8)) {
        for target in targets where target["type"] == .string("page") && target["url"] == .string(url) {
          if case .string(let address) = target["webSocketDebuggerUrl"] { pageURL = address }
        }
      }
      if pageURL == nil { try await Task.sleep(for: .milliseconds(50)) }
    }
    guard let pageURL else { throw ServerProcessError(message: "chromium has no page to attach to") }
    page = LiveClient(url: pageURL)
  }

  deinit {
    page.disconnect()
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: profile)
  }

  /// Calls a DevTools method and returns its `result`.
  func call(_ method: String, _ parameters: JSONValue) async throws -> JSONValue {
    let id = nextID.withLock { id in
      id += 1
      return id
    }
    page.send(
      JSONValue.object([("id", .int(Int64(id))), ("method", .string(method)), ("params", parameters)]).serialized)
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      for frame in page.frames {
        guard let value = try? JSONValue.parse(Array(frame.utf8)), value["id"] == .int(Int64(id)) else { continue }
        if let error = value["error"] { throw ServerProcessError(message: "\(method): \(error.serialized)") }
        return value["result"] ?? .null
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw ServerProcessError(message: "\(method) got no answer (\(page.failure ?? "connection open"))")
  }

  /// Evaluates a JavaScript expression whose value is a string.
  func evaluate(_ expression: String) async throws -> String {
    let result = try await call(
      "Runtime.evaluate", .object([("expression", .string(expression)), ("returnByValue", .bool(true))]))
    guard case .string(let text) = result["result"]?["value"] else {
      throw ServerProcessError(message: "\(expression) gave \(result.serialized)")
    }
    return text
  }

  /// Waits until a JavaScript expression is true, at most `timeout`;
  /// returns whether it became true. An expression that throws (the page
  /// still loading) counts as false.
  @discardableResult
  func waitUntil(_ expression: String, timeout: Duration = .seconds(30)) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if (try? await evaluate("String(Boolean(\(expression)))")) == "true" { return true }
      try await Task.sleep(for: .milliseconds(100))
    }
    return false
  }

  /// Takes a screenshot of the page and writes it, as PNG, to `file`.
  func screenshot(to file: URL) async throws {
    let result = try await call("Page.captureScreenshot", .object([("format", .string("png"))]))
    guard case .string(let base64) = result["data"], let data = Data(base64Encoded: base64) else {
      throw ServerProcessError(message: "no screenshot data")
    }
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: file)
  }
}
