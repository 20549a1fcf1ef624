import Foundation
import LiveQueryCore
import Testing
import WatchFormats

/// The demo page in headless Chromium: it signs in, subscribes and renders
/// a live table; after the writes stop, the table it rendered equals the
/// server's list, and a predicate that does not parse shows its error
/// under the field.
@Suite(
  .serialized,
  // CI installs chromium and runs these whatever; elsewhere they need it.
  .enabled(
    if: HeadlessChromium.executable != nil || ProcessInfo.processInfo.environment["CI"] != nil,
    "needs Debian's chromium (Scripts/install-chromium.sh)"))
struct BrowserTests {
  /// The page's subscription, as app.js sends it.
  static func board(_ predicate: String) -> String {
    #"{"op":"subscribe","id":"board","entity":"Task","predicate":"\#(predicate)","sort":[{"key":"status"},{"key":"priority","ascending":false},{"key":"title"}],"section":"status","limit":50}"#
  }

  /// The rendered table: a section header as `#name (count)`, a row as its ref.
  static let renderedTable =
    #"JSON.stringify([...document.querySelectorAll('#rows tr')].map(r => r.className === 'section' ? '#' + r.textContent : r.dataset.ref))"#

  /// What the table should show for a snapshot.
  static func table(of snapshot: SnapshotMessage) -> [String] {
    var rows: [String] = []
    var offset = 0
    for section in snapshot.sections {
      rows.append("#\(section.name ?? "all") (\(section.count))")
      rows += snapshot.objects[offset..<offset + section.count].map(\.ref)
      offset += section.count
    }
    return rows
  }

  /// The server's list now, from a client of its own with the page's user.
  static func serverList(_ server: ServerProcess, predicate: String) async throws -> [String] {
    let client = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    defer { client.disconnect() }
    client.send(board(predicate))
    try await client.waitFor { $0.contains { if case .snapshot = $0 { true } else { false } } }
    for message in client.messages { if case .snapshot(let snapshot) = message { return table(of: snapshot) } }
    throw ServerProcessError(message: "no snapshot")
  }

  @Test func thePageRendersTheServersListThroughMovesAndOwnerChanges() async throws {
    // 300 commits over 10 s, spread over 3 owners: inserts, moves within
    // and between sections, owner changes and deletes.
    let server = try await ServerProcess([
      "--demo-tokens", "--rate", "30", "--commits", "300", "--objects", "30", "--owners", "3", "--seed", "5",
    ])
    // A watch of u1's readable tasks: an exit is an owner change away.
    let witness = LiveClient(url: server.webSocketURL, bearer: try await TestTokens.token(sub: "u1"))
    witness.send(#"{"op":"watch","id":"mine","entity":"Task","events":["exited"]}"#)
    let browser = try await HeadlessChromium(url: server.url + "/")
    #expect(try await browser.waitUntil("document.getElementById('status').textContent === 'live as u1'"))
    // Until the writer stops: the initial save plus 300.
    try await server.waitForSave(301, timeout: .seconds(90))
    let expected = try await Self.serverList(server, predicate: "priority >= 0")
    #expect(try await Self.renderedTable(browser, awaiting: expected) == expected)
    #expect(expected.count > 3)
    let stats = try JSONValue.parse(Array(try await browser.evaluate("JSON.stringify(window.liveStats)").utf8))
    #expect(stats["snapshots"] == .int(1), "the page was never caught up with a second snapshot")
    #expect((stats["changes"]?.intValue ?? 0) > 20)
    #expect((stats["movedBetweenSections"]?.intValue ?? 0) > 0)
    #expect((stats["inserted"]?.intValue ?? 0) > 0)
    #expect((stats["deleted"]?.intValue ?? 0) > 0)
    #expect(witness.messages.contains { if case .event(let event) = $0 { !event.exited.isEmpty } else { false } })
    try await browser.screenshot(to: Self.screenshotFile)
  }

  @Test func aPredicateThatDoesNotParseShowsItsErrorUnderTheField() async throws {
    let server = try await ServerProcess(["--demo-tokens", "--rate", "20", "--commits", "40", "--seed", "9"])
    let browser = try await HeadlessChromium(url: server.url + "/")
    #expect(try await browser.waitUntil("document.getElementById('status').textContent === 'live as u1'"))
    let submit = "document.getElementById('query').requestSubmit(); 'sent'"
    _ = try await browser.evaluate("document.getElementById('predicate').value = 'priority >='; \(submit)")
    try await browser.waitUntil("document.getElementById('predicate-error').textContent !== ''")
    let error = try await browser.evaluate("document.getElementById('predicate-error').textContent")
    #expect(
      error
        == "error: expected expression, found end of input\n --> predicate:1:12\n  |\n1 | priority >=\n  |            ^"
    )
    // A predicate that parses replaces the list, and the error goes.
    _ = try await browser.evaluate("document.getElementById('predicate').value = 'priority >= 5'; \(submit)")
    try await server.waitForSave(41, timeout: .seconds(30))
    let expected = try await Self.serverList(server, predicate: "priority >= 5")
    #expect(try await Self.renderedTable(browser, awaiting: expected) == expected)
    #expect(try await browser.evaluate("document.getElementById('predicate-error').textContent") == "")
  }

  /// The page's rendered table, read again until it equals `expected` or
  /// ten seconds pass: the page may still be applying the last frames.
  static func renderedTable(_ browser: HeadlessChromium, awaiting expected: [String]) async throws -> [String] {
    var rendered: [String] = []
    for _ in 0..<50 {
      rendered = try JSONValue.parse(Array(try await browser.evaluate(renderedTable).utf8)).stringArray
      if rendered == expected { break }
      try await Task.sleep(for: .milliseconds(200))
    }
    return rendered
  }

  /// Where the screenshot goes: the package's build folder, for people to
  /// look at.
  static var screenshotFile: URL {
    ServerProcess.buildDirectory.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("screenshots/live-query-page.png")
  }
}

extension JSONValue {
  fileprivate var stringArray: [String] {
    guard case .array(let elements) = self else { return [] }
    return elements.compactMap { if case .string(let text) = $0 { text } else { nil } }
  }

  fileprivate var intValue: Int? { if case .int(let number) = self { Int(number) } else { nil } }
}
