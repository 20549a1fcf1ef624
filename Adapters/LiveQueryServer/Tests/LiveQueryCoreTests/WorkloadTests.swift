// Two types: the suite and the client it drives, which only it uses.

import ContextWatching
import LiveQueryCore
import LiveQueryTestSupport
import ObjectGraph
import PredicateDSL
import Testing
import WatchFormats

/// One client of the workload: its session, its model of what it may
/// read, and what it holds.
final class WorkloadClient {
  let reader: ModelReader
  let session: LiveSession
  var lists: [String: ModelList] = [:]
  var mirrors: [String: ClientMirror] = [:]
  /// Refs the client has received values for: only these may it be told
  /// left or were deleted.
  var seen: Set<String> = []
  var counter = 0

  init(reader: ModelReader, rig: LiveRig) {
    self.reader = reader
    session = rig.session(sub: reader.sub, role: reader.isAdmin ? "admin" : "user")
  }
}

/// Random workloads over several sessions with random owners and roles:
/// every frame each session receives is held against a model of what it
/// may read, and every list, rebuilt from its snapshot and changes, against
/// a fresh fetch of the model; lists are added, updated and removed
/// mid-stream.
@Suite struct WorkloadTests {
  @Test(arguments: Array(1...8) as [UInt64])
  func rowSecurityAndConsistency(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let rig = LiveRig()
    let owners = ["u1", "u2", "u3"]
    let clients = [
      WorkloadClient(reader: ModelReader(sub: "u1", isAdmin: false), rig: rig),
      WorkloadClient(reader: ModelReader(sub: "u2", isAdmin: false), rig: rig),
      WorkloadClient(reader: ModelReader(sub: "root", isAdmin: true), rig: rig),
    ]
    var tasks: [ObjectID: ModelTask] = [:]
    var gone: [ObjectID: ModelTask] = [:]
    var ids: [String: ObjectID] = [:]
    func randomTask() -> ModelTask {
      ModelTask(
        title: String("abcde".randomElement(using: &random)!), owner: owners.randomElement(using: &random)!,
        priority: Int.random(in: 0...7, using: &random), status: ["open", "done"].randomElement(using: &random)!,
        secret: Bool.random(using: &random) ? "s\(Int.random(in: 0...9, using: &random))" : nil)
    }
    for client in clients {
      client.session.receive(
        ClientMessage.watch(
          WatchRequest(id: "w", entity: "Task", predicate: "priority >= %@", arguments: [.int(3)])
        ).text)
    }
    for client in clients { client.session.flush() }
    for step in 0..<150 {
      let before = tasks
      let existing = tasks.keys.sorted()
      let roll = Int.random(in: 0..<100, using: &random)
      if roll < 30 || existing.isEmpty {
        let task = randomTask()
        let id = rig.insert(
          title: task.title, owner: task.owner, priority: task.priority, status: task.status, secret: task.secret)
        tasks[id] = task
        ids[LiveFixtures.refs.ref(for: id)] = id
      } else if roll < 65 {
        let id = existing.randomElement(using: &random)!
        var edits: [(ObjectID, String, FilterValue)] = []
        let other = randomTask()
        for key in ["owner", "priority", "status", "title", "secret"].shuffled(using: &random).prefix(2) {
          switch key {
          case "owner":
            tasks[id]!.owner = other.owner
            edits.append((id, key, .string(other.owner)))
          case "priority":
            tasks[id]!.priority = other.priority
            edits.append((id, key, .int(Int64(other.priority))))
          case "status":
            tasks[id]!.status = other.status
            edits.append((id, key, .string(other.status)))
          case "title":
            tasks[id]!.title = other.title
            edits.append((id, key, .string(other.title)))
          default:
            tasks[id]!.secret = other.secret
            edits.append((id, key, other.secret.map(FilterValue.string) ?? .null))
          }
        }
        rig.change(edits)
      } else if roll < 75 {
        let id = existing.randomElement(using: &random)!
        rig.delete(id)
        gone[id] = tasks.removeValue(forKey: id)
      } else {
        let client = clients.randomElement(using: &random)!
        let live = client.lists.keys.sorted()
        if roll < 85 && live.count < 4 || live.isEmpty {
          client.counter += 1
          let list = ModelList.random(id: "s\(client.counter)", using: &random)
          client.lists[list.request.id] = list
          client.session.receive(list.frame)
        } else if roll < 95 {
          let id = live.randomElement(using: &random)!
          let next = ModelList.random(id: id, using: &random)
          client.session.receive(client.lists[id]!.updateFrame(to: next))
          client.lists[id] = next
        } else {
          let id = live.randomElement(using: &random)!
          client.session.receive(ClientMessage.unsubscribe(id: id).text)
          client.lists[id] = nil
          client.mirrors[id] = nil
        }
      }
      for client in clients {
        client.session.flush()
        for text in client.session.outbox.drain() {
          check(text, client: client, tasks: tasks, before: before, gone: gone, ids: ids, step: step)
        }
        for (id, list) in client.lists {
          let expected = list.expected(tasks, reader: client.reader)
          #expect(
            client.mirrors[id]?.sections == expected,
            "seed \(seed) step \(step) \(client.reader.sub) \(id): \(client.mirrors[id].map(\.description) ?? "no list")"
          )
        }
      }
    }
  }

  /// Holds one frame against what its client may read.
  private func check(
    _ text: String, client: WorkloadClient, tasks: [ObjectID: ModelTask], before: [ObjectID: ModelTask],
    gone: [ObjectID: ModelTask],
    ids: [String: ObjectID], step: Int
  ) {
    let reader = client.reader
    let message: ServerMessage
    do {
      message = try ServerMessage.parse(text)
    } catch {
      Issue.record("step \(step): unreadable frame \(text): \(error)")
      return
    }
    /// An object sent with values: readable now (or, deleted, when last
    /// saved), and its values exactly the readable ones.
    func readable(_ object: LiveObject, deleted: Bool = false) {
      guard let id = ids[object.ref], let task = deleted ? gone[id] : tasks[id] else {
        Issue.record("step \(step): \(reader.sub) got an unknown ref in \(text)")
        return
      }
      #expect(reader.mayRead(task), "step \(step): \(reader.sub) got a row it may not read: \(text)")
      #expect(object.values == reader.values(task), "step \(step): \(reader.sub) got wrong values: \(text)")
      #expect(object.changedKeys.allSatisfy(reader.readableKeys.contains), "step \(step): hidden key in \(text)")
      client.seen.insert(object.ref)
    }
    /// An object said to leave or be deleted: one the client received, or
    /// one it could read before the save.
    func known(_ object: LiveObject) {
      let readBefore = ids[object.ref].flatMap { before[$0] }.map(reader.mayRead) ?? false
      #expect(
        client.seen.contains(object.ref) || readBefore,
        "step \(step): \(reader.sub) told of an object it could not read: \(text)")
      #expect(object.values == nil)
    }
    switch message {
    case .snapshot(let snapshot):
      snapshot.objects.forEach { readable($0) }
      client.mirrors[snapshot.id] = ClientMirror(snapshot)
    case .changes(let changes):
      changes.deleted.forEach { known($0.object) }
      changes.inserted.forEach { readable($0.object) }
      changes.moved.forEach { readable($0.object) }
      changes.updated.forEach { readable($0.object) }
      client.mirrors[changes.id]?.apply(changes)
    case .event(let event):
      (event.inserted + event.updated + event.entered).forEach { readable($0) }
      event.deleted.forEach { readable($0, deleted: true) }
      event.exited.forEach { known($0) }
    case .error, .pong, .ready:
      Issue.record("step \(step): \(reader.sub) got \(text)")
    }
  }
}
