import ContextWatching
import LiveQueryCore
import LiveQueryTestSupport
import ObjectGraph
import PredicateDSL
import Testing

/// A client that reads nothing while thousands of saves happen: the
/// session's outbox stays within its bound, and the first drain brings a
/// snapshot per list equal to a fresh fetch (and a note per watch).
@Suite struct BackpressureTests {
  @Test func aClientThatDoesNotReadIsCaughtUpWithSnapshots() throws {
    let rig = LiveRig()
    let limits = LiveLimits(outboxBytes: 8 * 1024, controlReserveBytes: 1024)
    let slow = rig.session(sub: "u1", limits: limits)
    let fast = rig.session(sub: "u1")
    var random = SeededRandom(seed: 7)
    var tasks: [ObjectID: ModelTask] = [:]
    for index in 0..<20 {
      let task = ModelTask(
        title: "t\(index)", owner: index % 3 == 0 ? "u2" : "u1", priority: index % 5, status: "open", secret: nil)
      tasks[rig.insert(title: task.title, owner: task.owner, priority: task.priority)] = task
    }
    let list = ModelList(
      request: SubscribeRequest(
        id: "s1", entity: "Task", predicate: "priority >= %@", arguments: [.int(1)],
        sortKeys: [.descending("priority")],
        limit: 10),
      matches: { $0.priority >= 1 })
    for session in [slow, fast] {
      session.receive(list.frame)
      session.receive(#"{"op":"watch","id":"w1","entity":"Task"}"#)
      session.flush()
    }
    let firstFrames = slow.outbox.drain()
    #expect(firstFrames.count == 1)
    var fastMirror = try #require(Self.snapshot(fast.outbox.drain()).map(ClientMirror.init))
    var largest = 0
    let ids = tasks.keys.sorted()
    for save in 1...3000 {
      let id = ids.randomElement(using: &random)!
      let priority = Int.random(in: 0...9, using: &random)
      tasks[id]!.priority = priority
      rig.change(id, "priority", .int(Int64(priority)))
      if save % 100 == 0 {
        slow.flush()
        largest = max(largest, slow.outbox.byteCount)
        fast.flush()
        for text in fast.outbox.drain() {
          if case .changes(let changes) = try ServerMessage.parse(text) { fastMirror.apply(changes) }
        }
      }
    }
    slow.flush()
    largest = max(largest, slow.outbox.byteCount)
    #expect(largest <= limits.outboxBytes + limits.controlReserveBytes, "the outbox grew to \(largest) bytes")
    let reader = ModelReader(sub: "u1", isAdmin: false)
    let expected = list.expected(tasks, reader: reader)
    #expect(fastMirror.sections == expected, "a client that reads keeps up")

    // The events that fit before the first one dropped are still there,
    // in save order.
    let waiting = slow.outbox.drain().map { try! ServerMessage.parse($0) }
    let eventSaves = waiting.compactMap { message -> Int? in
      if case .event(let event) = message { event.sequenceNumber } else { nil }
    }
    #expect(!eventSaves.isEmpty && eventSaves == eventSaves.sorted())
    slow.flush()
    let caughtUp = slow.outbox.drain().map { try! ServerMessage.parse($0) }
    guard case .snapshot(let snapshot)? = caughtUp.first(where: { if case .snapshot = $0 { true } else { false } })
    else {
      Issue.record("no snapshot after the drain: \(caughtUp)")
      return
    }
    #expect(ClientMirror(snapshot).sections == expected)
    #expect(snapshot.sequenceNumber > 20 && snapshot.sequenceNumber <= 3020)
    let notes = caughtUp.compactMap { message -> LiveError? in
      if case .error(let error) = message { error } else { nil }
    }
    #expect(notes.count == 1)
    #expect(notes.first?.code == .eventsDropped)
    #expect(notes.first?.id == "w1")
    // "the events of saves FIRST to LAST were dropped …": after the last
    // event kept, within the saves made.
    let words = notes.first?.message.split(separator: " ") ?? []
    #expect(words.count == 17 && words[2...3] == ["of", "saves"] && words[5] == "to")
    if words.count == 17, let first = Int(words[4]), let last = Int(words[6]) {
      #expect(first > eventSaves.last! && first <= last && last <= 3020)
    }

    // From the snapshot on, changes flow again and keep the list right.
    var mirror = ClientMirror(snapshot)
    for id in ids.prefix(5) {
      tasks[id]!.priority = 9
      rig.change(id, "priority", .int(9))
    }
    slow.flush()
    for text in slow.outbox.drain() {
      if case .changes(let changes) = try ServerMessage.parse(text) { mirror.apply(changes) }
    }
    #expect(mirror.sections == list.expected(tasks, reader: reader))
  }

  @Test func aFloodOfPingsStaysBounded() {
    let rig = LiveRig()
    let limits = LiveLimits(outboxBytes: 1024, controlReserveBytes: 512)
    let session = rig.session(sub: "u1", limits: limits)
    for index in 0..<10_000 { session.receive(#"{"op":"ping","id":"p\#(index)"}"#) }
    session.flush()
    #expect(session.outbox.byteCount <= limits.outboxBytes + limits.controlReserveBytes + 64)
    #expect(!session.outbox.acceptsRequests)
    #expect(session.outbox.droppedControlFrames == 10_000 - session.outbox.frameCount)
    let frames = session.outbox.drain()
    #expect(frames.first == #"{"v":1,"op":"pong","id":"p0"}"#)
    #expect(session.outbox.acceptsRequests)
  }

  private static func snapshot(_ frames: [String]) -> SnapshotMessage? {
    for text in frames {
      if case .snapshot(let snapshot)? = try? ServerMessage.parse(text) { return snapshot }
    }
    return nil
  }
}
