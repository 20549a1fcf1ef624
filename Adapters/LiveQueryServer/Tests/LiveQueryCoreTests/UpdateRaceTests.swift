import ContextWatching
import Dispatch
import LiveQueryCore
import LiveQueryTestSupport
import ObjectGraph
import PredicateDSL
import Testing

/// An `update` handled while a save's changes still wait for the session:
/// the save's changes come first, under the old request, then the answer;
/// the client's list stays right, sections reversed or not.
@Suite struct UpdateRaceTests {
  @Test(arguments: [true, false])
  func anUpdateBehindAPendingSave(reversesSections: Bool) throws {
    let rig = LiveRig()
    var tasks: [ObjectID: ModelTask] = [:]
    for (index, status) in ["open", "done", "open", "done", "open"].enumerated() {
      let task = ModelTask(title: "t\(index)", owner: "u1", priority: index, status: status, secret: nil)
      tasks[rig.insert(title: task.title, owner: task.owner, priority: task.priority, status: status)] = task
    }
    let session = rig.session(sub: "u1")
    let old = ModelList(
      request: SubscribeRequest(
        id: "s1", entity: "Task", sortKeys: [.ascending("status"), .ascending("title")], sectionKey: "status"),
      matches: { _ in true })
    let mirrors = session.send(old.frame).compactMap { text -> ClientMirror? in
      if case .snapshot(let snapshot)? = try? ServerMessage.parse(text) { ClientMirror(snapshot) } else { nil }
    }
    var mirror = try #require(mirrors.first)
    let new = ModelList(
      request: SubscribeRequest(
        id: "s1", entity: "Task", sortKeys: [reversesSections ? .descending("status") : .ascending("status")],
        sectionKey: "status", limit: 4),
      matches: { _ in true })
    // Holds the session's queue while the update and the save's delivery
    // queue up behind it: the update runs first, with the save committed
    // and its delivery still waiting.
    let gate = DispatchSemaphore(value: 0)
    session.queue.async { gate.wait() }
    session.receive(old.updateFrame(to: new))
    let id = tasks.keys.min()!
    tasks[id]!.status = "done"
    rig.change(id, "status", .string("done"))
    gate.signal()
    session.flush()
    var frames = 0
    for text in session.outbox.drain() {
      guard case .changes(let changes) = try ServerMessage.parse(text) else {
        Issue.record("unexpected \(text)")
        continue
      }
      frames += 1
      mirror.apply(changes)
    }
    #expect(frames == 2)
    #expect(mirror.sections == new.expected(tasks, reader: ModelReader(sub: "u1", isAdmin: false)))
  }
}
